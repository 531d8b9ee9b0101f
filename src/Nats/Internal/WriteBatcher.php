<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Nats\Exception\NatsException;
use Closure;

/**
 * Gets the outbound queue onto the socket: what is queued during one loop tick goes out in one
 * write at its end, and a writer fiber waits for the socket when the kernel did not take it all.
 * Publishers wait (awaitRoom()) only when more than the limit is queued, until half of it is
 * written. Detached while the connection is down: commands then stay queued for the next socket.
 *
 * @internal
 */
final class WriteBatcher
{
    /**
     * Once this much is queued, it is written at once instead of at the end of the tick: a burst
     * of publishes reaches the server while the rest is being built (as the C client flushes its
     * 32 KB buffer when full), in writes this large.
     */
    private const EARLY_WRITE = 65_536;

    public readonly OutboundQueue $queue;
    /** The socket of the connection while it is up; null while it is down or closed. */
    private ?Socket $socket = null;
    private bool $scheduled = false;
    private bool $writerActive = false;
    /**
     * Queued bytes past which a publish writes at once, also while the writer fiber waits: the
     * queue then follows what the server reads, instead of growing while a burst is built.
     */
    private int $earlyWriteAt = self::EARLY_WRITE;
    /** @var list<DeferredFuture<null>> publishers waiting for the queue to drain */
    private array $drainWaiters = [];
    private readonly Closure $flushCallback;

    public function __construct(private readonly int $maxPendingBytes)
    {
        $this->queue = new OutboundQueue();
        $this->flushCallback = $this->flushNow(...);
    }

    /** The connection is up on $socket: what is queued goes out at the end of this tick. */
    public function attach(Socket $socket): void
    {
        $this->socket = $socket;
        $this->schedule();
    }

    /** The connection is down: nothing is written until attach(). */
    public function detach(): void
    {
        $this->socket = null;
    }

    public function add(string $bytes, ?int $token = null): void
    {
        $this->queue->add($bytes, $token);
        $this->schedule();
    }

    /** A PUB or HPUB command: at the end of the tick, or now when enough is queued. */
    public function publish(string $command, ?int $token = null): void
    {
        $queue = $this->queue;
        $queue->add($command, $token);
        if ($queue->queuedBytes >= $this->earlyWriteAt) {
            if ($this->socket !== null) {
                $this->write($this->socket);
            }
        } elseif (!$this->scheduled && !$this->writerActive && $this->socket !== null) {
            $this->scheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    public function schedule(): void
    {
        if (!$this->scheduled && !$this->writerActive && $this->socket !== null) {
            $this->scheduled = true;
            Async::defer($this->flushCallback);
        }
    }

    /** Whether a publisher must wait (awaitRoom()) before queueing more. */
    public function isFull(): bool
    {
        return $this->socket !== null && $this->queue->pendingBytes() > $this->maxPendingBytes;
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

    /** Writes what the socket takes right now, ignoring a broken one (close() does this last). */
    public function writeWhatFits(): void
    {
        if ($this->socket === null) {
            return;
        }
        try {
            $this->queue->writeTo($this->socket);
        } catch (NatsException) {
        }
    }

    /** The connection is closed: publishers waiting for room get $reason. */
    public function fail(\Throwable $reason): void
    {
        $this->socket = null;
        $this->queue->clear();
        $waiters = $this->drainWaiters;
        $this->drainWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->fail($reason);
        }
    }

    /** At the end of the tick: one write of everything queued. */
    private function flushNow(): void
    {
        $this->scheduled = false;
        if (!$this->writerActive && $this->socket !== null) {
            $this->write($this->socket);
        }
    }

    /** What the kernel takes now; a writer fiber for the rest. */
    private function write(Socket $socket): void
    {
        try {
            $this->queue->writeTo($socket);
        } catch (NatsException) {
            $socket->close(); // the reader notices and reconnects

            return;
        } finally {
            // The next early write once as much again is queued (one system call per EARLY_WRITE bytes at most).
            $this->earlyWriteAt = $this->queue->queuedBytes + self::EARLY_WRITE;
        }
        if ($this->queue->isEmpty()) {
            $this->wakeDrainWaiters();

            return;
        }
        if ($this->writerActive) {
            return;
        }
        $this->writerActive = true;
        Async::run(function () use ($socket): void {
            try {
                while (!$this->queue->isEmpty() && $socket === $this->socket) {
                    $socket->awaitWritable();
                    $this->queue->writeTo($socket);
                }
            } catch (\Throwable) {
                $socket->close();
            } finally {
                $this->writerActive = false;
                $this->earlyWriteAt = $this->queue->queuedBytes + self::EARLY_WRITE;
                $this->wakeDrainWaiters();
                $this->schedule();
            }
        })->ignore();
    }

    private function wakeDrainWaiters(): void
    {
        if ($this->drainWaiters === [] || $this->queue->pendingBytes() > $this->maxPendingBytes / 2) {
            return;
        }
        $waiters = $this->drainWaiters;
        $this->drainWaiters = [];
        foreach ($waiters as $waiter) {
            $waiter->complete();
        }
    }
}
