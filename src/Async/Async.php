<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\FutureState;
use Bobbin\Async\Loop\BobbinDriver;
use Bobbin\Async\Loop\SelectPoller;
use Closure;
use Revolt\EventLoop;
use Throwable;

/**
 * The thin static facade of the fiber runtime. Nothing outside src/Async suspends a fiber or
 * touches the loop's I/O polling except through these calls and the classes beside them.
 *
 * Over 400 lines: it is the runtime's public facade, every entry point an application calls (run,
 * await, delay, stream waits, timers, fiber-local state), each a few lines over Loop.
 */
final class Async
{
    /** Tasks started with run() and not finished (a metric). */
    private static int $tasksAlive = 0;

    /** Whether installLoopDriver() or startFreshLoop() set this process's driver. */
    private static bool $loopDriverInstalled = false;

    /** How many tasks started with run() have not finished. */
    public static function tasksAlive(): int
    {
        return self::$tasksAlive;
    }

    /**
     * The loop's enabled callbacks, each with where the code it will run was written
     * ("file:line"): through Bobbin's own wrappers (Timer, Signals, tasks) to the closure they
     * wrap. '' where the driver cannot tell (Revolt's own drivers). For finding what a request
     * left behind on the loop; not for hot paths.
     *
     * @return array<string, string> callback id => origin
     */
    public static function loopCallbacks(): array
    {
        $driver = EventLoop::getDriver();
        $callbacks = [];
        foreach ($driver->getIdentifiers() as $id) {
            if ($driver->isEnabled($id)) {
                $callbacks[$id] = $driver instanceof BobbinDriver ? self::originOf($driver->callbackClosure($id)) : '';
            }
        }

        return $callbacks;
    }

    private static function originOf(Closure $closure, int $depth = 0): string
    {
        $function = new \ReflectionFunction($closure);
        $file = (string) $function->getFileName();
        if ($depth < 4 && (\str_starts_with($file, __DIR__ . '/') || \str_contains($file, '/revolt/event-loop/'))) {
            // A wrapper of the loop's or of this package's: the closure it wraps is the one that tells.
            foreach ($function->getStaticVariables() as $captured) {
                if ($captured instanceof Closure) {
                    return self::originOf($captured, $depth + 1);
                }
            }
        }

        return $file . ':' . (int) $function->getStartLine();
    }

    /**
     * Runs $task($args...) in its own fiber, starting on the next loop tick.
     *
     * $task is a plain Closure in the PHPDoc on purpose: PHPStan has no type for "a closure
     * taking whatever $args holds", and Closure(mixed...) would reject every closure with
     * typed parameters.
     *
     * @return Future<mixed>
     */
    public static function run(Closure $task, mixed ...$args): Future
    {
        ErrorReporter::installOnLoop();
        /** @var FutureState<mixed> $state */
        $state = new FutureState();
        self::$tasksAlive++;
        EventLoop::queue(static function () use ($state, $task, $args): void {
            // Held for the task's lifetime: every wait of this fiber reuses one suspension
            // instead of the loop creating (and dropping) one per wait.
            $suspension = EventLoop::getSuspension();
            try {
                $state->complete($task(...$args));
            } catch (Throwable $error) {
                $state->fail($error);
            } finally {
                self::$tasksAlive--;
            }
        });

        return new Future($state);
    }

    /**
     * Waits for $stream to turn readable by blocking the whole process, but only where that
     * holds up nobody: Bobbin's driver runs the loop and has nothing else to do
     * (BobbinDriver::isIdle(): no other stream, no referenced timer, nothing queued). Returns
     * false at once otherwise, on an interrupted wait, and for a descriptor numbered 1,024 or
     * above (stream_select() cannot sleep on it): then wait the usual way.
     *
     * For a plain script or a PHP-FPM request waiting for one answer: it sleeps right away, as
     * a blocking client would, instead of going through a loop turn first. On a shared vCPU the
     * peer it just woke then gets the processor by our sleeping rather than by preempting us.
     * Not for a wait that a cancellation or timeout should end: their timers do not keep the
     * loop busy, so it may look idle, and they are not polled while this sleeps.
     *
     * @param resource $stream
     */
    public static function awaitReadableIfIdle(mixed $stream): bool
    {
        $driver = EventLoop::getDriver();
        if (!$driver instanceof BobbinDriver || !$driver->isIdle()) {
            return false;
        }
        $read = [$stream];
        $write = $except = null;

        return @\stream_select($read, $write, $except, null) === 1;
    }

    /**
     * Runs $callback at the end of the current loop tick, after the fibers already resumed in it
     * (a place to flush what several fibers queued during the tick in one write).
     *
     * @param Closure(): void $callback
     */
    public static function defer(Closure $callback): void
    {
        EventLoop::defer(static fn () => $callback());
    }

    /**
     * The most descriptors the current loop driver can watch, or null when only the process's
     * open-files limit bounds it. select()-based drivers (Bobbin's on its SelectPoller, Revolt's
     * StreamSelectDriver) cannot watch a descriptor numbered 1,024 or above (FD_SETSIZE);
     * Bobbin's on epoll has no such limit.
     */
    public static function descriptorCeiling(): ?int
    {
        $driver = EventLoop::getDriver();
        if ($driver instanceof BobbinDriver) {
            return $driver->descriptorCeiling();
        }
        if ($driver instanceof EventLoop\Driver\StreamSelectDriver) {
            return SelectPoller::SELECTABLE_DESCRIPTORS;
        }

        return null;
    }

    /**
     * Whether PHP holds input for a TLS $stream that its descriptor does not show: OpenSSL may
     * have taken a whole TCP segment off the socket, handed out one record and kept the next
     * decrypted, so the socket never turns readable for it and a loop watching the descriptor
     * (epoll) waits forever. stream_select() is the one call that asks OpenSSL (SSL_pending) and
     * moves such bytes into the stream's buffer; a StreamWatcher told that TLS runs asks this
     * before each read wait. One zero-timeout select of one descriptor; true only for bytes PHP
     * holds, so a record still arriving is waited for, not spun on.
     *
     * @param resource $stream
     */
    public static function hasPendingInput(mixed $stream): bool
    {
        $read = [$stream];
        $write = $except = null;
        @\stream_select($read, $write, $except, 0, 0);

        // Bytes on the socket itself are the loop's business; only those PHP now holds count.
        return \stream_get_meta_data($stream)['unread_bytes'] > 0;
    }

    /**
     * Whether $stream has something to read (data, an end of stream, an error) right now: one
     * zero-timeout poll of that one descriptor, never a wait. For a cheap check that an idle
     * connection is still what it was: a healthy idle session has nothing to say.
     *
     * @param resource $stream
     */
    public static function isReadableNow(mixed $stream): bool
    {
        $driver = EventLoop::getDriver();
        if ($driver instanceof BobbinDriver) {
            return $driver->isReadableNow($stream); // on epoll: past descriptor 1024 too
        }
        $read = [$stream];
        $write = $except = null;

        return @\stream_select($read, $write, $except, 0, 0) === 1;
    }

    /**
     * Calls $callback from the loop whenever $stream is readable, until cancelWatch(): for a
     * condition to notice while no fiber waits on the stream (a parked keep-alive connection's
     * next request). A fiber that waits for data uses a StreamWatcher instead. The callback gets
     * the watch's id and the stream, so that one closure can serve many streams.
     *
     * @param resource $stream
     * @param Closure(string, mixed): void $callback
     * @return string an id for cancelWatch()
     */
    public static function watchReadable(mixed $stream, Closure $callback): string
    {
        return EventLoop::onReadable($stream, $callback);
    }

    public static function cancelWatch(string $id): void
    {
        EventLoop::cancel($id);
    }

    /**
     * Makes this process run on the loop driver BOBBIN_LOOP_DRIVER chooses (Bobbin's own by
     * default) instead of the one Revolt would pick: the one call a plain script, a PHP-FPM front
     * controller or a test bootstrap makes, before anything uses the loop. `bin/bobbin` makes it
     * itself. Loading the autoloader changes nothing (a library has no global side effect), so a
     * program that never calls it runs on Revolt's driver: correct, only slower. A second call
     * keeps the driver installed by the first.
     */
    public static function installLoopDriver(): void
    {
        if (!self::$loopDriverInstalled) {
            self::startFreshLoop();
        }
    }

    /**
     * Gives this process a loop of its own, of the driver BOBBIN_LOOP_DRIVER chooses: for a child
     * process after fork(), which must not share its parent's driver (its watchers, its timers).
     */
    public static function startFreshLoop(): void
    {
        EventLoop::setDriver(Loop\DriverChoice::create());
        self::$loopDriverInstalled = true;
    }

    /**
     * The fiber running now (null in {main}), for diagnostics only: a crash report asks it
     * isTerminated() to tell which task's code ended the process. Never suspend or resume it.
     *
     * @return \Fiber<mixed, mixed, mixed, mixed>|null
     */
    public static function currentFiber(): ?\Fiber
    {
        return \Fiber::getCurrent();
    }

    /**
     * Whether the code runs in {main}, not in a task: blocking mode (a script, a PHP-FPM request).
     * There the loop runs only while that code waits, so what it queues (Async::run()) waits for
     * its next wait — which may never come, or come after any amount of blocking work. Work that
     * must not wait so long (killing an abandoned statement) is done before returning instead.
     */
    public static function inMain(): bool
    {
        return \Fiber::getCurrent() === null;
    }

    /**
     * Keeps $state per fiber from now on: saved when a fiber starts to wait, restored when it
     * continues (FiberLocalState). For state PHP or a library keeps per process.
     *
     * With $savedAfterChangesOnly, waits save it only after perFiberStateChanged() was called
     * (by whatever changes that state): a wait then costs nothing while the state is untouched,
     * as it is for nearly every request (no header() call). Otherwise every wait saves it.
     */
    public static function keepPerFiber(FiberLocalState $state, bool $savedAfterChangesOnly = false): void
    {
        Internal\FiberLocalStates::$states[] = $state;
        if (!$savedAfterChangesOnly) {
            Internal\FiberLocalStates::$everyWait = true;
        }
        Internal\FiberLocalStates::$pending = true;
    }

    /**
     * Some state kept with keepPerFiber(..., savedAfterChangesOnly: true) has changed: the
     * current fiber's next wait saves it.
     */
    public static function perFiberStateChanged(): void
    {
        Internal\FiberLocalStates::$pending = true;
    }

    /**
     * When the bytes the loop last found ready arrived (microtime, seconds): the time a
     * request's bytes were there, however long other code kept the loop busy before they were
     * read. With $stream, a wait behind code that held the loop is counted too (BobbinDriver::
     * arrivalTime()). microtime(true) on drivers that do not tell.
     */
    public static function readyTime(mixed $stream = null): float
    {
        $driver = EventLoop::getDriver();
        if (!$driver instanceof BobbinDriver || $driver->polledAt <= 0.0) {
            return \microtime(true);
        }

        return $stream === null ? $driver->polledAt : $driver->arrivalTime($stream);
    }

    /** Sets the loop's heartbeat (BobbinDriver only; false elsewhere, where there is none). */
    public static function setLoopHeartbeat(?LoopHeartbeat $heartbeat): bool
    {
        $driver = EventLoop::getDriver();
        if (!$driver instanceof BobbinDriver) {
            return false;
        }
        $driver->heartbeat = $heartbeat;

        return true;
    }

    /**
     * Reports each stretch in which one fiber or callback held the loop for $seconds or longer,
     * after the fact (BobbinDriver::reportHolds(); false with another driver, which cannot).
     *
     * @param (Closure(LoopHold): void)|null $report null stops it
     */
    public static function reportLoopHolds(float $seconds, ?Closure $report): bool
    {
        $driver = EventLoop::getDriver();
        if (!$driver instanceof BobbinDriver) {
            return false;
        }
        $driver->reportHolds($seconds, $report);

        return true;
    }

    /** Suspends the current fiber (or runs the loop, outside a fiber) for $seconds. */
    public static function delay(float $seconds, ?Cancellation $cancellation = null): void
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        $done = false;
        $timerId = EventLoop::delay(\max(0.0, $seconds), static function () use ($suspension, &$done): void {
            if (!$done) {
                $done = true;
                $suspension->resume();
            }
        });
        $cancellationId = $cancellation?->subscribe(static function (CancelledException $e) use ($suspension, &$done): void {
            if (!$done) {
                $done = true;
                $suspension->throw($e);
            }
        });
        try {
            $suspension->suspend();
        } finally {
            EventLoop::cancel($timerId);
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }

    /**
     * Suspends until $stream is readable. For a stream awaited many times (a connection), a
     * StreamWatcher reuses its loop watchers and is cheaper.
     *
     * @param resource $stream
     * @throws TimeoutException|CancelledException
     */
    public static function awaitReadable($stream, ?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        self::awaitStream(true, $stream, $timeout, $cancellation);
    }

    /**
     * @param resource $stream
     * @throws TimeoutException|CancelledException
     */
    public static function awaitWritable($stream, ?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        self::awaitStream(false, $stream, $timeout, $cancellation);
    }

    /**
     * Applies $mapper to every input with at most $concurrency calls running at once. Results
     * keep the inputs' keys and order. After the first failure no new input is started; the
     * failure is thrown once the calls already running are done. A requested $cancellation
     * also stops starting new inputs and is thrown at once (calls already running go on).
     *
     * @template K of array-key
     * @template V
     * @template R
     * @param iterable<K, V> $inputs
     * @param Closure(V, K): R $mapper
     * @return array<K, R>
     */
    public static function map(iterable $inputs, Closure $mapper, int $concurrency, ?Cancellation $cancellation = null): array
    {
        if ($concurrency < 1) {
            throw new \ValueError('Concurrency must be at least 1');
        }
        $cancellation?->throwIfRequested();
        if (\is_array($inputs)) {
            // No more fibers than inputs: a fiber costs more to create than to switch to.
            $concurrency = \min($concurrency, \count($inputs));
        }
        $iterator = (static fn () => yield from $inputs)();
        /** @var list<array{K, R}> $slots results by input position, so the output keeps input order */
        $slots = [];
        $position = 0;
        $firstError = null;
        $worker = static function () use ($iterator, $mapper, $cancellation, &$slots, &$position, &$firstError): void {
            while ($firstError === null && !($cancellation?->isRequested() ?? false) && $iterator->valid()) {
                $key = $iterator->key();
                $value = $iterator->current();
                $slot = $position++;
                $iterator->next();
                try {
                    $slots[$slot] = [$key, $mapper($value, $key)];
                } catch (Throwable $e) {
                    // @phpstan-ignore nullCoalesce.variable (shared by reference between the workers)
                    $firstError ??= $e;
                }
            }
        };
        $workers = [];
        for ($i = 0; $i < $concurrency; $i++) {
            $workers[] = self::run($worker);
        }
        Future::awaitAll($workers, $cancellation);
        if ($firstError !== null) {
            throw $firstError;
        }
        \ksort($slots);
        $results = [];
        foreach ($slots as [$key, $result]) {
            $results[$key] = $result;
        }

        return $results;
    }

    /** @param resource $stream */
    private static function awaitStream(bool $read, $stream, ?float $timeout, ?Cancellation $cancellation): void
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        // Readiness, timeout and cancellation can all fire in one tick: only the first wakes us.
        $done = false;
        $settle = static function (?\Throwable $error) use ($suspension, &$done): void {
            if ($done) {
                return;
            }
            $done = true;
            $error === null ? $suspension->resume() : $suspension->throw($error);
        };
        $onReady = static fn () => $settle(null);
        $watcherId = $read ? EventLoop::onReadable($stream, $onReady) : EventLoop::onWritable($stream, $onReady);
        $timerId = $timeout === null ? null : EventLoop::delay(
            \max(0.0, $timeout),
            static fn () => $settle(new TimeoutException(
                \sprintf('The stream did not become %s within %.3f s', $read ? 'readable' : 'writable', $timeout),
            )),
        );
        $cancellationId = $cancellation?->subscribe($settle);
        try {
            $suspension->suspend();
        } finally {
            EventLoop::cancel($watcherId);
            if ($timerId !== null) {
                EventLoop::cancel($timerId);
            }
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }
}
