<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\StreamWaiters;
use Revolt\EventLoop;

/**
 * Readiness waits on one long-lived stream (a client connection, a database socket).
 *
 * The loop watchers are created once and only enabled while a fiber waits, which is much
 * cheaper than a watcher per wait on a hot connection. One reader and one writer may wait at a
 * time (a connection has one fiber reading and at most one writing).
 */
final class StreamWatcher
{
    private readonly StreamWaiters $waiters;
    private readonly string $readId;
    private readonly string $writeId;
    private bool $closed = false;

    /** @param resource $stream */
    public function __construct($stream)
    {
        $waiters = $this->waiters = new StreamWaiters();
        $this->readId = EventLoop::disable(EventLoop::onReadable(
            $stream,
            static function (string $id) use ($waiters): void {
                EventLoop::disable($id);
                $waiters->wakeReader();
            },
        ));
        $this->writeId = EventLoop::disable(EventLoop::onWritable(
            $stream,
            static function (string $id) use ($waiters): void {
                EventLoop::disable($id);
                $waiters->wakeWriter();
            },
        ));
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * @throws TimeoutException|CancelledException|StreamClosedException
     * @throws \LogicException when another fiber already waits to read
     */
    public function awaitReadable(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        $this->await(true, $timeout, $cancellation);
    }

    /**
     * @throws TimeoutException|CancelledException|StreamClosedException
     * @throws \LogicException when another fiber already waits to write
     */
    public function awaitWritable(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        $this->await(false, $timeout, $cancellation);
    }

    /** Removes the loop watchers; a fiber still waiting gets a StreamClosedException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        EventLoop::cancel($this->readId);
        EventLoop::cancel($this->writeId);
        $error = new StreamClosedException('The stream was closed while a fiber waited on it');
        $this->waiters->wakeReader($error);
        $this->waiters->wakeWriter($error);
    }

    private function await(bool $read, ?float $timeout, ?Cancellation $cancellation): void
    {
        if ($this->closed) {
            throw new StreamClosedException('The stream watcher is closed');
        }
        $cancellation?->throwIfRequested();
        $waiters = $this->waiters;
        if (($read ? $waiters->reader : $waiters->writer) !== null) {
            throw new \LogicException(\sprintf('Another fiber is already waiting to %s this stream', $read ? 'read' : 'write'));
        }
        $suspension = EventLoop::getSuspension();
        $watcherId = $read ? $this->readId : $this->writeId;
        if ($read) {
            $waiters->reader = $suspension;
        } else {
            $waiters->writer = $suspension;
        }
        if ($timeout === null && $cancellation === null) {
            // The hot path (a connection waiting for its next bytes): no closures, no timer.
            EventLoop::enable($watcherId);
            try {
                $suspension->suspend();
            } finally {
                $this->endWait($read, $watcherId);
            }

            return;
        }
        // A cancellation callback runs from the loop queue and may come late: $waiting makes sure
        // it can only end this wait, never a later one of the same fiber on this stream.
        $waiting = true;
        $wake = static function (\Throwable $e) use ($waiters, $read, &$waiting): void {
            // @phpstan-ignore booleanNot.alwaysFalse ($waiting is cleared by reference when the wait ends)
            if (!$waiting) {
                return;
            }
            $read ? $waiters->wakeReader($e) : $waiters->wakeWriter($e);
        };
        $timerId = $timeout === null ? null : EventLoop::delay(\max(0.0, $timeout), static fn () => $wake(new TimeoutException(
            \sprintf('The stream did not become %s within %.3f s', $read ? 'readable' : 'writable', $timeout),
        )));
        $cancellationId = $cancellation?->subscribe($wake);
        EventLoop::enable($watcherId);
        try {
            $suspension->suspend();
        } finally {
            $waiting = false;
            $this->endWait($read, $watcherId);
            if ($timerId !== null) {
                EventLoop::cancel($timerId);
            }
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }

    private function endWait(bool $read, string $watcherId): void
    {
        // close() may have run while the fiber was suspended, cancelling the watchers.
        if (!$this->closed) {
            EventLoop::disable($watcherId);
        }
        if ($read) {
            $this->waiters->reader = null;
        } else {
            $this->waiters->writer = null;
        }
    }
}
