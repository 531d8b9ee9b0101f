<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/**
 * The outgoing side of a pipelined connection (Redis, Tarantool, NATS): what is asked during one loop
 * turn leaves in one write at its end; what the kernel does not take is written by a fiber as
 * the socket drains; appenders wait (awaitRoom()) while more than a bound is pending, until
 * half of it is written. Detached while its owner has no socket: bytes then stay queued for the
 * next attach(). A broken socket is reported once to the owner ($onFailure), and the writer
 * detaches itself; the owner closes the socket and calls fail() or detach().
 *
 * Queued bytes are joined once when handed to the socket (a string grown by appends is copied
 * again on many of its reallocations) and written in slices of at most MAX_WRITE, so each byte
 * is copied a bounded number of times however little the kernel takes per write. Entries may
 * carry a token, so that one not yet handed to the socket can be withdrawn (a request cancelled
 * before it left is never sent).
 *
 * Properties written per request are untyped (@var): PHP 8.2's JIT writes a typed property
 * through a checking helper (~60 instructions a write; bench/tarantool/reference.php).
 *
 * Over 400 lines: the owners' ways to take an entry back (withdraw(), forget()) and the
 * back-pressure wait belong to the queue they change.
 */
final class EndOfTurnWriter
{
    /** At most this much per write: a write the kernel takes in part costs a copy of at most this much. */
    private const MAX_WRITE = 1_048_576;

    /** @var array<int, string> entries not handed to the socket yet, in order (keys kept when one is taken back) */
    private $queued = [];
    /** @var int bytes in $queued */
    public $queuedBytes = 0;
    /** @var string a batch handed to the socket in part, from $offset on */
    private $unwritten = '';
    /** @var int */
    private $offset = 0;
    /**
     * Entries with a token still in $queued: their keys there, by token. By key, not by bytes:
     * two entries may hold the same bytes (two identical Redis commands), and taking back the
     * wrong one would shift whose reply is whose.
     *
     * @var array<int, int>
     */
    private $unsent = [];
    /** @var resource|null the socket while the owner has one */
    private $stream = null;
    private ?StreamWatcher $watcher = null;
    /** @var bool */
    private $scheduled = false;
    /** @var bool */
    private $writerActive = false;
    /** @var int queued bytes past which appendEager() writes at once */
    private $earlyWriteAt;
    /** @var list<DeferredFuture<null>> appenders waiting for room */
    private array $drainWaiters = [];
    private readonly Closure $flushCallback;

    /**
     * @param Closure(?\Throwable): void $onFailure called once when a write fails (null: the
     *        kernel refused the bytes; else what the wait for room threw); the writer is detached
     * @param int $maxPendingBytes past this, isFull() tells appenders to awaitRoom()
     * @param int $earlyWrite once this much is queued, appendEager() writes at once instead of
     *        at the end of the turn (a burst reaches the server while the rest is being built)
     */
    public function __construct(
        private readonly Closure $onFailure,
        private readonly int $maxPendingBytes = \PHP_INT_MAX,
        private readonly int $earlyWrite = \PHP_INT_MAX,
    ) {
        $this->earlyWriteAt = $earlyWrite;
        $this->flushCallback = $this->flushNow(...);
    }

    /**
     * The owner has a socket: what is queued goes out at the end of this turn. $watcher is the
     * owner's, so that closing it wakes a writer waiting for room.
     *
     * @param resource $stream
     */
    public function attach(mixed $stream, StreamWatcher $watcher): void
    {
        $this->stream = $stream;
        $this->watcher = $watcher;
        // Nothing to write, nothing deferred: a script's first wait may still sleep in one blocking select.
        if ($this->queuedBytes !== 0 || $this->unwritten !== '') {
            $this->schedule();
        }
    }

    /**
     * The owner's socket is gone: nothing is written until attach(). With $stream, only if that
     * is the socket attached (a socket closing after a newer one was attached leaves it be).
     *
     * @param resource|null $stream
     */
    public function detach(mixed $stream = null): void
    {
        if ($stream !== null && $stream !== $this->stream) {
            return;
        }
        $this->stream = null;
        $this->watcher = null;
    }

    /**
     * Writes $bytes now when nothing is pending and $batch is false (a lone request: no wait for
     * the end of the turn); otherwise queues them for the end of the turn.
     */
    public function write(string $bytes, bool $batch = false): void
    {
        if ($batch || $this->queuedBytes !== 0 || $this->writerActive || $this->unwritten !== '' || $this->stream === null) {
            $this->queued[] = $bytes;
            $this->queuedBytes += \strlen($bytes);
            if (!$this->scheduled && !$this->writerActive && $this->stream !== null) {
                $this->scheduled = true;
                Async::defer($this->flushCallback);
            }

            return;
        }
        $written = @\fwrite($this->stream, $bytes);
        if ($written === false) {
            $this->broke(null);
        } elseif ($written < \strlen($bytes)) {
            $this->unwritten = $bytes;
            $this->offset = $written;
            $this->startWriter($this->stream);
        }
    }

    /** Queues $bytes for the end of the turn; $token lets withdraw() take them back until then. */
    public function append(string $bytes, ?int $token = null): void
    {
        $this->queued[] = $bytes;
        $this->queuedBytes += \strlen($bytes);
        if ($token !== null) {
            $this->unsent[$token] = \array_key_last($this->queued);
        }
        if (!$this->scheduled && !$this->writerActive && $this->stream !== null) {
            $this->scheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    /** append(), and a write at once when $earlyWrite bytes were queued since the last write. */
    public function appendEager(string $bytes, ?int $token = null): void
    {
        $this->queued[] = $bytes;
        $this->queuedBytes += \strlen($bytes);
        if ($token !== null) {
            $this->unsent[$token] = \array_key_last($this->queued);
        }
        if ($this->queuedBytes >= $this->earlyWriteAt) {
            if ($this->stream !== null) {
                $this->writeQueued($this->stream);
            }
        } elseif (!$this->scheduled && !$this->writerActive && $this->stream !== null) {
            $this->scheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    /** Puts $bytes before everything queued (a reconnect's subscriptions). */
    public function prepend(string $bytes): void
    {
        // array_unshift() numbers the keys anew (0, 1, …): the tokens' keys become positions + 1.
        $positions = $this->unsent === [] ? [] : \array_flip(\array_keys($this->queued));
        \array_unshift($this->queued, $bytes);
        $this->queuedBytes += \strlen($bytes);
        foreach ($this->unsent as $token => $key) {
            $this->unsent[$token] = $positions[$key] + 1;
        }
    }

    public function isEmpty(): bool
    {
        return $this->queuedBytes === 0 && $this->unwritten === '';
    }

    public function pendingBytes(): int
    {
        return $this->queuedBytes + \strlen($this->unwritten) - $this->offset;
    }

    /** Whether the entry of $token is still queued (not handed to the socket). */
    public function isUnsent(int $token): bool
    {
        return isset($this->unsent[$token]);
    }

    /** The entry of $token is not wanted any more: dropped if still queued. */
    public function forget(int $token): void
    {
        $key = $this->unsent[$token] ?? null;
        if ($key === null) {
            return;
        }
        unset($this->unsent[$token]);
        if (isset($this->queued[$key])) {
            $this->queuedBytes -= \strlen($this->queued[$key]);
            unset($this->queued[$key]); // the others keep their keys
        }
    }

    /**
     * Takes $bytes back unless the socket has any of them: from the queue, or from a batch the
     * kernel took in part, after what it took. $bytes must be unique among what is pending.
     * Whether they were taken back: false when the socket has them, or some of them (they left).
     */
    public function withdraw(string $bytes): bool
    {
        $at = \array_search($bytes, $this->queued, true);
        if ($at !== false) {
            unset($this->queued[$at]); // the others keep their keys (the tokens' are in $unsent)
            $this->queuedBytes -= \strlen($bytes);
            $token = \array_search($at, $this->unsent, true);
            if ($token !== false) {
                unset($this->unsent[$token]);
            }

            return true;
        }
        $at = $this->unwritten === '' ? false : \strpos($this->unwritten, $bytes, $this->offset);
        if ($at === false) {
            return false;
        }
        $this->unwritten = \substr_replace($this->unwritten, '', $at, \strlen($bytes));

        return true;
    }

    /** Whether an appender must wait (awaitRoom()) before queueing more. */
    public function isFull(): bool
    {
        return $this->stream !== null && $this->pendingBytes() > $this->maxPendingBytes;
    }

    /** @throws CancelledException */
    public function awaitRoom(?Cancellation $cancellation): void
    {
        /** @var DeferredFuture<null> $drained */
        $drained = new DeferredFuture();
        $this->drainWaiters[] = $drained;
        $this->schedule();
        $drained->future()->await($cancellation);
    }

    /** Writes what the socket takes right now, ignoring a broken one (before the owner closes it). */
    public function writeWhatFits(): void
    {
        if ($this->stream !== null) {
            $this->writeToKernel($this->stream);
        }
    }

    /**
     * After the socket was lost: the batch in part written is gone with it; of the queued
     * entries, those $keep refuses are dropped too.
     *
     * @param Closure(string): bool $keep
     */
    public function discardInFlight(Closure $keep): void
    {
        $this->unwritten = '';
        $this->offset = 0;
        $kept = [];
        $bytes = 0;
        foreach ($this->queued as $key => $entry) {
            if ($keep($entry)) {
                $kept[$key] = $entry; // keys kept: the tokens' are in $unsent
                $bytes += \strlen($entry);
            }
        }
        $this->queued = $kept;
        $this->queuedBytes = $bytes;
        foreach ($this->unsent as $token => $key) {
            if (!isset($kept[$key])) {
                unset($this->unsent[$token]);
            }
        }
    }

    /** The owner is closed: everything pending is dropped, appenders waiting for room get $reason. */
    public function fail(\Throwable $reason): void
    {
        $this->detach();
        $this->queued = [];
        $this->queuedBytes = 0;
        $this->unwritten = '';
        $this->offset = 0;
        $this->unsent = [];
        $waiters = $this->drainWaiters;
        $this->drainWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->fail($reason);
        }
    }

    private function schedule(): void
    {
        if (!$this->scheduled && !$this->writerActive && $this->stream !== null) {
            $this->scheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    /** At the end of the turn: one write of everything queued. */
    private function flushNow(): void
    {
        $this->scheduled = false;
        if (!$this->writerActive && $this->stream !== null) {
            $this->writeQueued($this->stream);
        }
    }

    /** @param resource $stream what the kernel takes now; a writer fiber for the rest */
    private function writeQueued(mixed $stream): void
    {
        $ok = $this->writeToKernel($stream);
        // The next early write once as much again is queued (one system call per $earlyWrite bytes at most).
        $this->earlyWriteAt = $this->queuedBytes + $this->earlyWrite;
        if (!$ok) {
            $this->broke(null);

            return;
        }
        if ($this->queuedBytes === 0 && $this->unwritten === '') {
            $this->wakeDrainWaiters();

            return;
        }
        if (!$this->writerActive) {
            $this->startWriter($stream);
        }
    }

    /** @param resource $stream false when the socket is broken */
    private function writeToKernel(mixed $stream): bool
    {
        while (true) {
            $left = \strlen($this->unwritten) - $this->offset;
            if ($left === 0) {
                if ($this->queuedBytes === 0) {
                    $this->unwritten = '';
                    $this->offset = 0;

                    return true;
                }
                $this->unwritten = \count($this->queued) === 1 ? (string) \reset($this->queued) : \implode('', $this->queued);
                $this->offset = 0;
                $this->queued = [];
                $this->queuedBytes = 0;
                if ($this->unsent !== []) {
                    $this->unsent = [];
                }
                $left = \strlen($this->unwritten);
            }
            $chunk = $this->offset === 0 && $left <= self::MAX_WRITE ? $this->unwritten : \substr($this->unwritten, $this->offset, self::MAX_WRITE);
            $written = @\fwrite($stream, $chunk);
            if ($written === false) {
                return false;
            }
            $this->offset += $written;
            if ($written < \strlen($chunk)) {
                return true;
            }
        }
    }

    /** @param resource $stream the socket buffer is full: a fiber waits for room (a loop callback cannot) */
    private function startWriter(mixed $stream): void
    {
        $this->writerActive = true;
        $watcher = $this->watcher;
        \assert($watcher !== null);
        Async::run(function () use ($stream, $watcher): void {
            $failure = null;
            try {
                while ($stream === $this->stream && ($this->queuedBytes !== 0 || $this->unwritten !== '')) {
                    $watcher->awaitWritable();
                    if ($stream === $this->stream && !$this->writeToKernel($stream)) {
                        $this->writerActive = false;
                        $this->broke(null);

                        return;
                    }
                }
            } catch (\Throwable $e) {
                $failure = $e;
            }
            $this->writerActive = false;
            $this->earlyWriteAt = $this->queuedBytes + $this->earlyWrite;
            if ($failure !== null && $stream === $this->stream) {
                $this->broke($failure);

                return;
            }
            $this->wakeDrainWaiters();
            $this->schedule();
        })->ignore();
    }

    private function broke(?\Throwable $cause): void
    {
        $this->detach();
        ($this->onFailure)($cause);
    }

    private function wakeDrainWaiters(): void
    {
        if ($this->drainWaiters === [] || $this->pendingBytes() > $this->maxPendingBytes / 2) {
            return;
        }
        $waiters = $this->drainWaiters;
        $this->drainWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->complete();
        }
    }
}
