<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

/**
 * One descriptor registered with epoll: what the kernel was told ($armed) and what the streams
 * on it want now ($wanted). Usually one stream, described by $key, $stream and $mask with no
 * array at all (two arrays per registration were ~0.7 KiB of heap per idle connection); two
 * or more when PHP holds several stream resources on one open descriptor (pg_socket() makes a
 * new one per call), then kept in $masks and $streams.
 *
 * @internal
 */
final class EpollRegistration
{
    /** Event bits registered with the kernel: may exceed $wanted until an unwanted event comes. */
    public int $armed = 0;
    /** EpollPoller's wait count (plus one) when reading was last armed: see stayedQuietSince(). */
    public int $readArmedAt = 0;
    /** What the streams want: $mask, or the union of $masks. */
    public int $wanted = 0;
    /** Whether one stream only is registered here: then it is $key, $stream and $mask (the fast path). */
    public bool $single = true;
    public int $key = -1;
    /** @var resource|null */
    public mixed $stream = null;
    /** The event bits the single stream wants (EpollPoller narrows it in place). */
    public int $mask = 0;
    /** @var array<int, int>|null wanted event bits by stream key, while more than one stream shares the descriptor */
    public ?array $masks = null;
    /** @var array<int, resource|null>|null the streams by key, likewise */
    public ?array $streams = null;

    /** @param int $token what epoll reports this registration's events with; never reused */
    public function __construct(public readonly int $fd, public readonly int $token)
    {
    }

    /** @param resource $stream */
    public function add(int $key, mixed $stream, int $bits): void
    {
        if ($this->single && ($this->key === -1 || $this->key === $key)) {
            $this->key = $key;
            $this->stream = $stream;
            $this->wanted = $this->mask |= $bits;

            return;
        }
        if ($this->single) {
            // A second stream resource on the same descriptor.
            $this->masks = [$this->key => $this->mask];
            $this->streams = [$this->key => $this->stream];
            $this->single = false;
        }
        $this->streams[$key] = $stream;
        $this->masks[$key] = ($this->masks[$key] ?? 0) | $bits;
        $this->wanted |= $bits;
    }

    /** Withdraws $bits of $key's interest (of a shared registration). */
    public function remove(int $key, int $bits): void
    {
        if ($this->single) {
            $this->wanted = $this->mask &= ~$bits;

            return;
        }
        \assert($this->masks !== null);
        $this->masks[$key] &= ~$bits;
        $this->wanted = self::union($this->masks);
    }

    /**
     * The streams registered here and what each wants.
     *
     * @return array<int, array{resource|null, int}> by key (null: a stream PHP has closed)
     */
    public function entries(): array
    {
        if ($this->single) {
            return $this->key === -1 ? [] : [$this->key => [$this->stream, $this->mask]];
        }
        $entries = [];
        foreach ($this->masks ?? [] as $key => $mask) {
            $entries[$key] = [$this->streams[$key] ?? null, $mask];
        }

        return $entries;
    }

    /** Forgets streams PHP has closed (their interest); true when none is left open. */
    public function dropClosedStreams(): bool
    {
        if ($this->single) {
            if (\is_resource($this->stream)) {
                return false;
            }
            // Its key stays, so that the poller can still forget what it filed under it.
            $this->wanted = $this->mask = 0;

            return true;
        }
        \assert($this->masks !== null && $this->streams !== null);
        foreach ($this->streams as $key => $stream) {
            if (!\is_resource($stream)) {
                unset($this->streams[$key], $this->masks[$key]);
            }
        }
        $this->wanted = self::union($this->masks);
        if (\count($this->masks) === 1) {
            $this->key = (int) \array_key_first($this->masks);
            $this->stream = $this->streams[$this->key];
            $this->mask = $this->masks[$this->key];
            $this->masks = $this->streams = null;
            $this->single = true;
        }

        return $this->streams === [];
    }

    /** @param array<int, int> $masks */
    private static function union(array $masks): int
    {
        $union = 0;
        foreach ($masks as $mask) {
            $union |= $mask;
        }

        return $union;
    }
}
