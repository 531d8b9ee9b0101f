<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\StreamWaiters;
use Bobbin\Async\Loop\FiberSuspension;
use Bobbin\Async\Loop\BobbinDriver;
use Revolt\EventLoop;

/**
 * Readiness waits on one long-lived stream (a client connection, a database socket).
 *
 * Under Bobbin's driver (BobbinDriver) a wait registers the fiber with the driver itself, so readiness
 * resumes it straight from the poll. Under any other Revolt driver the loop watchers are created
 * once and only enabled while a fiber waits, which is much cheaper than a watcher per wait. One
 * reader and one writer may wait at a time (a connection has one fiber reading and at most one
 * writing).
 */
final class StreamWatcher
{
    private readonly StreamWaiters $waiters;
    /** Set when the loop is Bobbin's driver: waits go to it directly. */
    private readonly ?BobbinDriver $driver;
    private readonly int $fd;
    private readonly string $readId;
    private readonly string $writeId;
    private bool $closed = false;
    /** Set once TLS runs on the stream: OpenSSL may then hold bytes the descriptor does not show. */
    private bool $encrypted = false;
    /** @var int empty reads in a row that feof() took for the peer's end, on TLS; its reader zeroes it when bytes come (goneAfterEmptyRead()) */
    public $emptyReads = 0;
    /**
     * The suspension of the fiber that waited last: a connection's own fiber waits here again
     * and again. It holds that fiber only weakly while idle. Untyped (written per wait;
     * docs/ASYNC.md, Rules).
     *
     * @var FiberSuspension<mixed>|null
     */
    private $suspension = null;
    /**
     * What a cancellation calls to end a read (write) wait under it, made on the first such
     * wait: one closure per watcher and direction instead of one per wait.
     */
    private ?\Closure $onReadCancelled = null;
    private ?\Closure $onWriteCancelled = null;

    /** @param resource $stream */
    public function __construct(private $stream)
    {
        $waiters = $this->waiters = new StreamWaiters();
        $this->fd = (int) $stream;
        $driver = EventLoop::getDriver();
        if ($driver instanceof BobbinDriver) {
            $this->driver = $driver;
            $this->readId = $this->writeId = '';

            return;
        }
        $this->driver = null;
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
        if ($this->encrypted && Async::hasPendingInput($this->stream)) {
            return; // decrypted bytes OpenSSL kept would never wake the descriptor on epoll
        }
        if ($this->driver !== null && $timeout === null && !$this->closed) {
            // The hot path (a connection waiting for its next bytes): no closures, no timer.
            $cancellation === null ? $this->awaitDirectly($this->driver, true) : $this->awaitDirectlyUnlessCancelled($this->driver, true, $cancellation);

            return;
        }
        $this->await(true, $timeout, $cancellation);
    }

    /**
     * @throws TimeoutException|CancelledException|StreamClosedException
     * @throws \LogicException when another fiber already waits to write
     */
    public function awaitWritable(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        if ($this->driver !== null && $timeout === null && !$this->closed) {
            $cancellation === null ? $this->awaitDirectly($this->driver, false) : $this->awaitDirectlyUnlessCancelled($this->driver, false, $cancellation);

            return;
        }
        $this->await(false, $timeout, $cancellation);
    }

    /**
     * Drops the suspension kept for the fiber that waited last, when that fiber will not wait
     * here again (a parked keep-alive connection's fiber ends): an idle object less per idle
     * connection. The next wait makes a new one.
     */
    public function forgetLastWaiter(): void
    {
        if ($this->waiters->reader === null && $this->waiters->writer === null) {
            $this->suspension = null;
        }
    }

    /** Says TLS now runs on the stream (TlsHandshake does, for the watcher it is given). */
    public function noteTlsStarted(): void
    {
        $this->encrypted = true;
    }

    /**
     * Whether an empty read, the stream having been found readable, means the peer has gone.
     * feof() says so for plain TCP. On TLS it asks OpenSSL and then reads errno, which a failed
     * accept() in the same process may have left behind (ETIMEDOUT): it can say "gone" while
     * the client's request is arriving (seen as curl's "Empty reply from server", about one
     * HTTPS request in a few hundred). So on TLS it takes two empty reads in a row, each after
     * a wait: a peer that has left keeps the socket readable, so the second comes at once.
     */
    public function goneAfterEmptyRead(): bool
    {
        if (!\feof($this->stream)) {
            return false;
        }

        return !$this->encrypted || ++$this->emptyReads >= 2;
    }

    /**
     * True when the loop is Bobbin's driver and has nothing else to do (BobbinDriver::isIdle()):
     * a blocking wait on this stream would then hold up nobody.
     */
    public function loopIsIdle(): bool
    {
        return $this->driver !== null && $this->driver->isIdle();
    }

    /** Stops watching; a fiber still waiting gets a StreamClosedException. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->driver === null) {
            EventLoop::cancel($this->readId);
            EventLoop::cancel($this->writeId);
        }
        if ($this->waiters->reader === null && $this->waiters->writer === null) {
            return; // nobody to tell: no exception, whose backtrace costs more than the close
        }
        $error = new StreamClosedException('The stream was closed while a fiber waited on it');
        $this->wake(true, $error);
        $this->wake(false, $error);
    }

    /**
     * Ends a fiber's wait to read this stream by throwing $error in it; nothing when no fiber
     * waits (or readiness has already resumed it).
     */
    public function interruptRead(\Throwable $error): void
    {
        $this->wake(true, $error);
    }

    /**
     * awaitDirectly() that a cancellation ends (a database query waiting under its request's
     * cancellation): the cancellation wakes the wait as close() does, through the waiters.
     * The classes are the @param's, not declared: each wait of a statement passes here
     * (docs/ASYNC.md, Rules).
     *
     * @param BobbinDriver $driver
     * @param Cancellation $cancellation
     */
    private function awaitDirectlyUnlessCancelled($driver, bool $read, $cancellation): void
    {
        $cancellation->throwIfRequested();
        $waiters = $this->waiters;
        if ($read) {
            $waiters->readCancellation = $cancellation;
            $id = $cancellation->subscribe($this->onReadCancelled ??= self::cancelledWaitEnder($waiters, $driver, $this->fd, true));
        } else {
            $waiters->writeCancellation = $cancellation;
            $id = $cancellation->subscribe($this->onWriteCancelled ??= self::cancelledWaitEnder($waiters, $driver, $this->fd, false));
        }
        try {
            $this->awaitDirectly($driver, $read);
        } catch (\Throwable $error) {
            $waiters->forgetCancellation($read);
            $cancellation->unsubscribe($id);
            throw $error;
        }
        $waiters->forgetCancellation($read);
        $cancellation->unsubscribe($id);
    }

    /**
     * The callback a cancellation calls to end a direct wait in direction $read. It runs from
     * the loop queue and may come late, after the wait it was subscribed for ended and another
     * began: it ends the current wait only if that wait's own cancellation is requested (then
     * with that cancellation's reason). Static and holding no watcher, so that a watcher dropped
     * is freed at once (its destructor closes the stream's waits).
     */
    private static function cancelledWaitEnder(StreamWaiters $waiters, BobbinDriver $driver, int $fd, bool $read): \Closure
    {
        return static function () use ($waiters, $driver, $fd, $read): void {
            $cancellation = $read ? $waiters->readCancellation : $waiters->writeCancellation;
            $suspension = $read ? $waiters->reader : $waiters->writer;
            if ($cancellation === null || $suspension === null || !$cancellation->isRequested()) {
                return;
            }
            \assert($suspension instanceof FiberSuspension);
            if (!($read ? $driver->abortReadWait($fd, $suspension) : $driver->abortWriteWait($fd, $suspension))) {
                return; // readiness already resumed it
            }
            try {
                $cancellation->throwIfRequested();
            } catch (\Throwable $reason) {
                $read ? $waiters->wakeReader($reason) : $waiters->wakeWriter($reason);
            }
        };
    }

    /**
     * A wait without timeout or cancellation, handed to Bobbin's driver itself.
     *
     * @param BobbinDriver $driver
     */
    private function awaitDirectly($driver, bool $read): void
    {
        $suspension = $this->suspension;
        if ($suspension === null || !$suspension->belongsTo(\Fiber::getCurrent())) {
            $suspension = $this->suspension = $driver->fiberSuspension();
        }
        if (($read ? $this->waiters->reader : $this->waiters->writer) !== null) {
            throw new \LogicException(\sprintf('Another fiber is already waiting to %s this stream', $read ? 'read' : 'write'));
        }
        // Catch and rethrow rather than finally, on this wait and the ones it makes: a finally
        // block stops the tracing JIT (FAST_CALL), and every connection's wait would run
        // interpreted.
        if ($read) {
            $this->waiters->reader = $suspension;
            try {
                $driver->waitReadable($this->stream, $suspension);
            } catch (\Throwable $error) {
                $this->waiters->reader = null;
                throw $error;
            }
            $this->waiters->reader = null;
        } else {
            $this->waiters->writer = $suspension;
            try {
                $driver->waitWritable($this->stream, $suspension);
            } catch (\Throwable $error) {
                $this->waiters->writer = null;
                throw $error;
            }
            $this->waiters->writer = null;
        }
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
        if ($read) {
            $waiters->reader = $suspension;
        } else {
            $waiters->writer = $suspension;
        }
        $this->startWait($read, $suspension);
        // Catch and rethrow, not finally (here and below): a finally block stops PHP's tracing
        // JIT (FAST_CALL), and the code after a wait would run in the interpreter on every wait.
        if ($timeout === null && $cancellation === null) {
            try {
                $suspension->suspend();
            } catch (\Throwable $error) {
                $this->endWait($read, $suspension);
                throw $error;
            }
            $this->endWait($read, $suspension);

            return;
        }
        // A timer or cancellation callback runs from the loop queue and may come late: $waiting
        // makes sure it can only end this wait, never a later one of the same fiber.
        $waiting = true;
        $wake = function (\Throwable $e) use ($read, &$waiting): void {
            // @phpstan-ignore if.alwaysTrue ($waiting is cleared by reference when the wait ends)
            if ($waiting) {
                $this->wake($read, $e);
            }
        };
        $timerId = $timeout === null ? null : EventLoop::delay(\max(0.0, $timeout), static fn () => $wake(new TimeoutException(
            \sprintf('The stream did not become %s within %.3f s', $read ? 'readable' : 'writable', $timeout),
        )));
        $cancellationId = $cancellation?->subscribe($wake);
        try {
            $suspension->suspend();
        } catch (\Throwable $error) {
            $waiting = false;
            $this->endTimedWait($read, $suspension, $timerId, $cancellation, $cancellationId);
            throw $error;
        }
        $waiting = false;
        $this->endTimedWait($read, $suspension, $timerId, $cancellation, $cancellationId);
    }

    /** @param EventLoop\Suspension<mixed> $suspension */
    private function endTimedWait(bool $read, EventLoop\Suspension $suspension, ?string $timerId, ?Cancellation $cancellation, ?string $cancellationId): void
    {
        $this->endWait($read, $suspension);
        if ($timerId !== null) {
            EventLoop::cancel($timerId);
        }
        if ($cancellationId !== null) {
            $cancellation?->unsubscribe($cancellationId);
        }
    }

    /** @param EventLoop\Suspension<mixed> $suspension */
    private function startWait(bool $read, EventLoop\Suspension $suspension): void
    {
        if ($this->driver === null) {
            EventLoop::enable($read ? $this->readId : $this->writeId);
        } else {
            \assert($suspension instanceof FiberSuspension);
            $read ? $this->driver->awaitReadable($this->stream, $suspension) : $this->driver->awaitWritable($this->stream, $suspension);
        }
    }

    /** @param EventLoop\Suspension<mixed> $suspension */
    private function endWait(bool $read, EventLoop\Suspension $suspension): void
    {
        if ($this->driver === null) {
            // close() may have run while the fiber was suspended, cancelling the watchers.
            if (!$this->closed) {
                EventLoop::disable($read ? $this->readId : $this->writeId);
            }
        } else {
            \assert($suspension instanceof FiberSuspension);
            $read ? $this->driver->abortReadWait($this->fd, $suspension) : $this->driver->abortWriteWait($this->fd, $suspension);
        }
        if ($read) {
            $this->waiters->reader = null;
        } else {
            $this->waiters->writer = null;
        }
    }

    /** Ends a wait early with $error (timeout, cancellation, close). */
    private function wake(bool $read, \Throwable $error): void
    {
        $suspension = $read ? $this->waiters->reader : $this->waiters->writer;
        if ($suspension === null) {
            return;
        }
        if ($this->driver !== null) {
            \assert($suspension instanceof FiberSuspension);
            $stillWaiting = $read ? $this->driver->abortReadWait($this->fd, $suspension) : $this->driver->abortWriteWait($this->fd, $suspension);
            if (!$stillWaiting) {
                return; // readiness already resumed it
            }
        } else {
            EventLoop::disable($read ? $this->readId : $this->writeId);
        }
        $read ? $this->waiters->wakeReader($error) : $this->waiters->wakeWriter($error);
    }
}
