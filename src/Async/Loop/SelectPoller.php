<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * Readiness by stream_select(): every wait hands the kernel the whole set of watched streams,
 * so a poll costs O(watched streams) even when one is ready, and descriptors numbered 1024 or
 * above cannot be watched at all (FD_SETSIZE). Works wherever PHP does.
 *
 * @internal
 */
final class SelectPoller implements Poller
{
    /**
     * stream_select() watches descriptors below this only (PHP's FD_SETSIZE on Linux): a process
     * polling this way can use no more, whatever its open-files limit.
     */
    public const SELECTABLE_DESCRIPTORS = 1024;

    /** @var array<int, resource> every stream the next poll watches for reading, by key */
    private array $read = [];
    /** @var array<int, resource> */
    private array $write = [];

    public function watchRead(int $key, mixed $stream): void
    {
        $this->read[$key] = $stream;
    }

    public function watchWrite(int $key, mixed $stream): void
    {
        $this->write[$key] = $stream;
    }

    public function unwatchRead(int $key): void
    {
        unset($this->read[$key]);
    }

    public function unwatchWrite(int $key): void
    {
        unset($this->write[$key]);
    }

    public function wait(?float $timeout, array &$readable, array &$writable, array &$failed): int
    {
        $readable = $this->read;
        $writable = $this->write;
        $except = null;
        if ($timeout === null) {
            $seconds = null;
            $microseconds = null;
        } else {
            $seconds = (int) $timeout;
            $microseconds = (int) (($timeout - $seconds) * 1e6);
        }
        // stream_select() keeps the keys of the streams it returns.
        $ready = @\stream_select($readable, $writable, $except, $seconds, $microseconds);
        if ($ready !== false) {
            return $ready;
        }
        $readable = $writable = [];
        $error = \error_get_last();
        \error_clear_last();
        $message = $error['message'] ?? 'unknown error';
        if (\stripos($message, 'unable to select [4]') !== false) {
            return 0; // EINTR: a signal arrived; its callbacks are queued right after the poll
        }
        if (\str_contains($message, 'FD_SETSIZE')) {
            $failed = $this->evictUnselectableStreams();

            return 0;
        }

        throw new \Error('stream_select() failed: ' . $message);
    }

    /** stream_select() watches only the streams someone waits on: nothing is known of the others. */
    public function waits(): int
    {
        return 0;
    }

    public function stayedQuietSince(int $key, int $since): bool
    {
        return false;
    }

    public function isReadableNow(mixed $stream): bool
    {
        $read = [$stream];
        $write = $except = null;

        return @\stream_select($read, $write, $except, 0, 0) === 1;
    }

    public function descriptorCeiling(): int
    {
        return self::SELECTABLE_DESCRIPTORS;
    }

    /**
     * A stream with a descriptor numbered 1024 or above makes every stream_select() fail
     * (FD_SETSIZE), which would stop the whole loop. PHP does not tell descriptor numbers, so
     * each watched stream is tried alone; those that fail leave the poll, and their waiters and
     * callbacks get a DescriptorLimitException instead of the loop dying.
     *
     * @return array<int, DescriptorLimitException>
     */
    private function evictUnselectableStreams(): array
    {
        $failed = [];
        foreach ($this->read + $this->write as $key => $stream) {
            $probe = [$stream];
            $write = $except = null;
            if (@\stream_select($probe, $write, $except, 0) !== false) {
                continue;
            }
            \error_clear_last();
            unset($this->read[$key], $this->write[$key]);
            $failed[$key] = new DescriptorLimitException(
                'A stream\'s descriptor is numbered 1024 or above, which stream_select() cannot watch (FD_SETSIZE). '
                . 'Keep fewer connections open per worker (bin/bobbin serve --max-connections) or run more workers.',
            );
        }

        return $failed;
    }
}
