<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\CallbackType;
use Revolt\EventLoop\Driver;
use Revolt\EventLoop\FiberLocal;
use Revolt\EventLoop\InvalidCallbackError;
use Revolt\EventLoop\Suspension;
use Revolt\EventLoop\UncaughtThrowable;
use Revolt\EventLoop\UnsupportedFeatureException;

/**
 * Bobbin's event loop driver: Revolt's Driver contract on stream_select(), built for the cost
 * of one wait.
 *
 * Revolt's own StreamSelectDriver spends ~2.5 µs per wait on bookkeeping (a closure and a
 * callback-fiber hop per resume, a scan of every callback per tick, an extra non-blocking poll
 * after every busy tick, an error handler swapped around each poll). Here:
 *  - resuming a suspension queues the fiber itself and the loop resumes it directly;
 *  - a fiber can wait on a stream without a callback at all (awaitReadable()/awaitWritable(),
 *    used by Bobbin\Async\StreamWatcher), so readiness goes from the poll straight to the fiber;
 *  - counts of referenced callbacks are kept, never recomputed;
 *  - the poll blocks whenever nothing is queued.
 * Callbacks still run in a dedicated fiber, as Revolt promises: one that suspends becomes that
 * task's fiber and a fresh callback fiber takes over.
 *
 * Optional poll batching (PERFORMANCE-NOTES idea 1): with $batchDelay > 0, a tick that found
 * fewer than $batchBelow ready streams is followed by a pause of $batchDelay seconds before the
 * next poll, so the next poll finds more at once. It trades latency for CPU; off by default.
 */
final class SelectDriver implements Driver
{
    /**
     * stream_select() watches descriptors below this only (PHP's FD_SETSIZE on Linux): a process
     * on this driver can use no more, whatever its open-files limit.
     */
    public const SELECTABLE_DESCRIPTORS = 1024;

    private const RESUME = 0;
    private const THROW = 1;
    private const MICROTASK = 2;

    private int $nextId = 0;
    /** @var array<string, Watch> */
    private array $watches = [];

    /** @var array<int, resource> every stream the next poll watches for reading, by fd */
    private array $readStreams = [];
    /** @var array<int, array<string, Watch>> enabled readable callbacks, by fd */
    private array $readWatches = [];
    /** @var array<int, FiberSuspension<mixed>> the fiber waiting to read, by fd */
    private array $readWaiters = [];
    /** @var array<int, resource> */
    private array $writeStreams = [];
    /** @var array<int, array<string, Watch>> */
    private array $writeWatches = [];
    /** @var array<int, FiberSuspension<mixed>> */
    private array $writeWaiters = [];

    /** @var array<string, Watch> enabled defers, run in the next tick */
    private array $pendingDefers = [];
    private readonly TimerHeap $timers;
    /** @var array<int, array<string, Watch>> */
    private array $signalWatches = [];
    /** @var list<int> */
    private array $caughtSignals = [];
    private readonly \Closure $signalHandler;

    /** Enabled, referenced callbacks plus waiting fibers: the loop runs while this is above 0. */
    private int $referenced = 0;

    /**
     * Run before anything else, in order: [RESUME, Fiber, value], [THROW, Fiber, Throwable] and
     * [MICROTASK, Closure, args]. A callback's resumes and queue() calls run before the next
     * callback, as Revolt promises.
     *
     * @var array<int, array{int, mixed, mixed}>
     */
    private array $microtasks = [];
    private int $microtaskHead = 0;
    /** @var array<int, Watch> callbacks whose event was seen, in order */
    private array $callbacks = [];
    private int $callbackHead = 0;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null the fiber the loop resumed last, while it runs */
    private ?\Fiber $resumedFiber = null;

    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    private ?\Fiber $loopFiber = null;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    private ?\Fiber $callbackFiber = null;
    private readonly \Closure $loopBody;
    private readonly \Closure $callbackBody;
    /** What the callback fiber suspends with when the queue is done (anything else: a task took it). */
    private readonly \stdClass $drained;
    /** @var (\Closure(): mixed)|null handed to {main} when the loop fiber next yields */
    private ?\Closure $interrupt = null;
    private ?\Closure $errorHandler = null;
    private bool $stopped = false;

    /** @var \WeakMap<object, \WeakReference<FiberSuspension<mixed>>> suspensions by fiber */
    private \WeakMap $suspensions;
    /** @var FiberSuspension<mixed>|null */
    private ?FiberSuspension $mainSuspension = null;
    /** @var FiberSuspension<mixed>|null */
    private ?FiberSuspension $lastSuspension = null;

    private bool $lastPollWasSmall = false;
    /** @var FiberSuspension<mixed>|null the waiter polling inline: readiness sets $inlineReady instead of resuming it */
    private ?FiberSuspension $inlineWaiter = null;
    private bool $inlineReady = false;

    /**
     * @param float $batchDelay seconds to pause after a tick with fewer than $batchBelow ready streams (0: off)
     */
    public function __construct(
        private readonly float $batchDelay = 0.0,
        private readonly int $batchBelow = 4,
    ) {
        if ($batchDelay < 0 || $batchDelay > 0.01) {
            throw new \ValueError('The poll batching delay must be between 0 and 0.01 s');
        }
        $this->timers = new TimerHeap();
        $this->suspensions = new \WeakMap();
        $this->drained = new \stdClass();
        $this->loopBody = $this->runLoop(...);
        $this->callbackBody = $this->runCallbackFiber(...);
        $this->signalHandler = function (int $signal): void {
            $this->caughtSignals[] = $signal;
        };
    }

    /**
     * The driver the environment asks for: BOBBIN_LOOP_BATCH_US sets the poll batching pause in
     * microseconds (0, the default, turns it off).
     */
    public static function fromEnvironment(): self
    {
        $batch = \getenv('BOBBIN_LOOP_BATCH_US');
        if ($batch === false || $batch === '') {
            return new self();
        }
        if (!\ctype_digit($batch)) {
            throw new \ValueError(\sprintf('BOBBIN_LOOP_BATCH_US must be a whole number of microseconds, got "%s"', $batch));
        }

        return new self((int) $batch / 1e6);
    }

    // ---- Running -------------------------------------------------------------------------

    public function run(): void
    {
        if ($this->loopFiber?->isRunning()) {
            throw new \Error('The event loop is already running');
        }
        if (\Fiber::getCurrent() !== null) {
            throw new \Error(\sprintf("Can't call %s() within a fiber (i.e., outside of {main})", __METHOD__));
        }
        $interrupt = $this->enterLoop();
        if ($interrupt !== null) {
            $interrupt();

            throw new \Error('An interrupt from the event loop must throw');
        }
    }

    public function stop(): void
    {
        $this->stopped = true;
    }

    public function isRunning(): bool
    {
        return $this->loopFiber !== null && ($this->loopFiber->isRunning() || $this->loopFiber->isSuspended());
    }

    /**
     * Runs the loop for a suspension of {main} until it is resumed.
     *
     * @param FiberSuspension<mixed> $suspension
     * @internal
     */
    public function runFromMain(FiberSuspension $suspension): mixed
    {
        $interrupt = $this->enterLoop();
        if ($suspension->pending) {
            $suspension->pending = false;
            if ($interrupt !== null) {
                $interrupt(); // an uncaught error from a callback: it throws
            }

            throw new \Error('Event loop terminated without resuming the current suspension (the cause is either a fiber deadlock, or an incorrectly unreferenced/canceled watcher)');
        }
        \assert($interrupt !== null);

        return $interrupt();
    }

    /**
     * @param \Fiber<mixed, mixed, mixed, mixed> $fiber
     * @internal queues $fiber to be resumed with $value
     */
    public function scheduleResume(\Fiber $fiber, mixed $value): void
    {
        $this->microtasks[] = [self::RESUME, $fiber, $value];
    }

    /**
     * @param \Fiber<mixed, mixed, mixed, mixed> $fiber
     * @internal queues $throwable to be thrown into $fiber
     */
    public function scheduleThrow(\Fiber $fiber, \Throwable $throwable): void
    {
        $this->microtasks[] = [self::THROW, $fiber, $throwable];
    }

    /**
     * @param \Closure(): mixed $interrupt
     * @internal hands $interrupt to {main} as soon as the loop fiber can yield
     */
    public function interruptWith(\Closure $interrupt): void
    {
        $this->interrupt = $interrupt;
    }

    /** @return Suspension<mixed> */
    public function getSuspension(): Suspension
    {
        return $this->fiberSuspension();
    }

    /**
     * True when nothing but the running code could happen before it yields: no stream is
     * watched or waited on, no referenced timer is pending, no signal is watched, and nothing is
     * queued. A wait that blocks the process then delays no one (only unreferenced timers, which
     * are never promised to run at all). Bobbin\Postgres uses it to wait inside libpq in plain
     * scripts and under PHP-FPM, as a blocking pg_query_params() does.
     */
    public function isIdle(): bool
    {
        return $this->referenced === 0 && $this->readStreams === [] && $this->writeStreams === []
            && $this->signalWatches === [] && $this->pendingDefers === [] && $this->interrupt === null
            && !isset($this->microtasks[$this->microtaskHead]) && !isset($this->callbacks[$this->callbackHead]);
    }

    /**
     * getSuspension() with its concrete type, for the direct waits.
     *
     * @return FiberSuspension<mixed>
     */
    public function fiberSuspension(): FiberSuspension
    {
        $fiber = \Fiber::getCurrent();
        if ($fiber === null) {
            return $this->mainSuspension ??= new FiberSuspension($this, null);
        }
        // The fiber that suspended last usually asks again (one connection, one request).
        $last = $this->lastSuspension;
        if ($last !== null && $last->fiberRef?->get() === $fiber) {
            return $last;
        }
        $suspension = ($this->suspensions[$fiber] ?? null)?->get();
        if ($suspension === null) {
            $suspension = new FiberSuspension($this, $fiber);
            // Held weakly: a suspended fiber's suspension holds the fiber, the map's own key,
            // and PHP 8.2 never collects such a WeakMap entry.
            $this->suspensions[$fiber] = \WeakReference::create($suspension);
        }

        return $this->lastSuspension = $suspension;
    }

    // ---- Direct stream waits ---------------------------------------------------------------

    /**
     * Registers $suspension to be resumed once $stream is readable; the caller then suspends.
     * Readiness resumes the fiber straight from the poll (no callback). One waiter per stream.
     *
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function awaitReadable(mixed $stream, FiberSuspension $suspension): void
    {
        $fd = (int) $stream;
        if (isset($this->readWaiters[$fd])) {
            throw new \LogicException('Another fiber is already waiting to read this stream');
        }
        $this->readWaiters[$fd] = $suspension;
        $this->readStreams[$fd] = $stream;
        $this->referenced++;
    }

    /**
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function awaitWritable(mixed $stream, FiberSuspension $suspension): void
    {
        $fd = (int) $stream;
        if (isset($this->writeWaiters[$fd])) {
            throw new \LogicException('Another fiber is already waiting to write this stream');
        }
        $this->writeWaiters[$fd] = $suspension;
        $this->writeStreams[$fd] = $stream;
        $this->referenced++;
    }

    /**
     * Suspends the current fiber (or {main}) until $stream is readable: the hot path of every
     * connection. When nothing else is queued the loop would poll next anyway, so the poll runs
     * right here in the waiting fiber, and if it finds this stream ready the fiber goes on
     * without a single fiber switch. Anything else the poll found is queued for the loop as
     * usual.
     *
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension the current fiber's
     */
    public function waitReadable(mixed $stream, FiberSuspension $suspension): void
    {
        $this->awaitReadable($stream, $suspension);
        try {
            $this->suspendUntilWoken($suspension);
        } finally {
            $this->abortReadWait((int) $stream, $suspension);
        }
    }

    /**
     * waitReadable() for writability.
     *
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension the current fiber's
     */
    public function waitWritable(mixed $stream, FiberSuspension $suspension): void
    {
        $this->awaitWritable($stream, $suspension);
        try {
            $this->suspendUntilWoken($suspension);
        } finally {
            $this->abortWriteWait((int) $stream, $suspension);
        }
    }

    /**
     * Polls inline when the loop would poll next anyway and returns if that found the
     * registered stream ready; suspends otherwise.
     *
     * @param FiberSuspension<mixed> $suspension
     */
    private function suspendUntilWoken(FiberSuspension $suspension): void
    {
        if ($this->canPollInline()) {
            $this->inlineWaiter = $suspension;
            try {
                $this->tick();
            } finally {
                $this->inlineWaiter = null;
                $ready = $this->inlineReady;
                $this->inlineReady = false;
            }
            if ($ready) {
                return;
            }
        }
        $suspension->suspend();
    }

    /**
     * True when the loop's next step would be this very poll: nothing is queued, and the calling
     * fiber gives control straight back to the loop when it suspends ({main}, the callback fiber,
     * or a fiber the loop resumed; not a fiber some other code started or resumed).
     */
    private function canPollInline(): bool
    {
        if (isset($this->microtasks[$this->microtaskHead]) || isset($this->callbacks[$this->callbackHead])
            || $this->pendingDefers !== [] || $this->inlineWaiter !== null || $this->interrupt !== null || $this->stopped) {
            return false;
        }
        $fiber = \Fiber::getCurrent();

        return $fiber === null || $fiber === $this->resumedFiber || $fiber === $this->callbackFiber;
    }

    /**
     * Withdraws a wait registered by awaitReadable() (a timeout, a cancellation, a close).
     * Returns false when $suspension no longer waits there (readiness already woke it).
     *
     * @param FiberSuspension<mixed> $suspension
     */
    public function abortReadWait(int $fd, FiberSuspension $suspension): bool
    {
        if (($this->readWaiters[$fd] ?? null) !== $suspension) {
            return false;
        }
        unset($this->readWaiters[$fd]);
        if (!isset($this->readWatches[$fd])) {
            unset($this->readStreams[$fd]);
        }
        $this->referenced--;

        return true;
    }

    /** @param FiberSuspension<mixed> $suspension */
    public function abortWriteWait(int $fd, FiberSuspension $suspension): bool
    {
        if (($this->writeWaiters[$fd] ?? null) !== $suspension) {
            return false;
        }
        unset($this->writeWaiters[$fd]);
        if (!isset($this->writeWatches[$fd])) {
            unset($this->writeStreams[$fd]);
        }
        $this->referenced--;

        return true;
    }

    // ---- Callbacks -------------------------------------------------------------------------

    public function queue(\Closure $closure, mixed ...$args): void
    {
        $this->microtasks[] = [self::MICROTASK, $closure, $args];
    }

    public function defer(\Closure $closure): string
    {
        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Defer, $closure));
    }

    public function delay(float $delay, \Closure $closure): string
    {
        if ($delay < 0) {
            throw new \Error('Delay must be greater than or equal to zero');
        }

        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Delay, $closure, interval: $delay));
    }

    public function repeat(float $interval, \Closure $closure): string
    {
        if ($interval < 0) {
            throw new \Error('Interval must be greater than or equal to zero');
        }

        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Repeat, $closure, interval: $interval));
    }

    public function onReadable(mixed $stream, \Closure $closure): string
    {
        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Readable, $closure, $stream, (int) $stream));
    }

    public function onWritable(mixed $stream, \Closure $closure): string
    {
        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Writable, $closure, $stream, (int) $stream));
    }

    public function onSignal(int $signal, \Closure $closure): string
    {
        if (!\function_exists('pcntl_signal')) {
            throw new UnsupportedFeatureException('Signal handling requires the pcntl extension');
        }

        return $this->register(new Watch('w' . ++$this->nextId, CallbackType::Signal, $closure, signal: $signal));
    }

    public function enable(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId);
        if ($watch->enabled) {
            return $callbackId;
        }
        $watch->enabled = true;
        if ($watch->referenced) {
            $this->referenced++;
        }
        $this->activate($watch);

        return $callbackId;
    }

    public function disable(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? null;
        if ($watch === null || !$watch->enabled) {
            return $callbackId;
        }
        $watch->enabled = false;
        $watch->invokable = false;
        if ($watch->referenced) {
            $this->referenced--;
        }
        $this->deactivate($watch);

        return $callbackId;
    }

    public function cancel(string $callbackId): void
    {
        $this->disable($callbackId);
        unset($this->watches[$callbackId]);
    }

    public function reference(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId);
        if (!$watch->referenced) {
            $watch->referenced = true;
            if ($watch->enabled) {
                $this->referenced++;
            }
        }

        return $callbackId;
    }

    public function unreference(string $callbackId): string
    {
        $watch = $this->watches[$callbackId] ?? null;
        if ($watch !== null && $watch->referenced) {
            $watch->referenced = false;
            if ($watch->enabled) {
                $this->referenced--;
            }
        }

        return $callbackId;
    }

    public function setErrorHandler(?\Closure $errorHandler): void
    {
        $this->errorHandler = $errorHandler;
    }

    public function getErrorHandler(): ?\Closure
    {
        return $this->errorHandler;
    }

    public function getHandle(): mixed
    {
        return null;
    }

    public function getIdentifiers(): array
    {
        return \array_map('strval', \array_keys($this->watches));
    }

    public function getType(string $callbackId): CallbackType
    {
        return ($this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId))->type;
    }

    public function isEnabled(string $callbackId): bool
    {
        return ($this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId))->enabled;
    }

    public function isReferenced(string $callbackId): bool
    {
        return ($this->watches[$callbackId] ?? throw InvalidCallbackError::invalidIdentifier($callbackId))->referenced;
    }

    /** @return array<string, array{type: CallbackType, enabled: bool, referenced: bool}> */
    public function __debugInfo(): array
    {
        $info = [];
        foreach ($this->watches as $id => $watch) {
            $info[(string) $id] = ['type' => $watch->type, 'enabled' => $watch->enabled, 'referenced' => $watch->referenced];
        }

        return $info;
    }

    public function __destruct()
    {
        foreach (\array_keys($this->signalWatches) as $signal) {
            @\pcntl_signal($signal, \SIG_DFL);
        }
    }

    private function register(Watch $watch): string
    {
        $this->activate($watch); // first: a signal handler that cannot be installed throws
        $this->watches[$watch->id] = $watch;
        $this->referenced++;

        return $watch->id;
    }

    private function activate(Watch $watch): void
    {
        switch ($watch->type) {
            case CallbackType::Readable:
                \assert(\is_resource($watch->stream));
                $this->readWatches[$watch->fd][$watch->id] = $watch;
                $this->readStreams[$watch->fd] = $watch->stream;
                break;
            case CallbackType::Writable:
                \assert(\is_resource($watch->stream));
                $this->writeWatches[$watch->fd][$watch->id] = $watch;
                $this->writeStreams[$watch->fd] = $watch->stream;
                break;
            case CallbackType::Defer:
                $this->pendingDefers[$watch->id] = $watch;
                break;
            case CallbackType::Delay:
            case CallbackType::Repeat:
                $watch->expiration = \hrtime(true) / 1e9 + $watch->interval;
                $this->timers->insert($watch);
                break;
            case CallbackType::Signal:
                if (!isset($this->signalWatches[$watch->signal])) {
                    if (!@\pcntl_signal($watch->signal, $this->signalHandler)) {
                        throw new UnsupportedFeatureException(\sprintf('Failed to register a handler for signal %d', $watch->signal));
                    }
                }
                $this->signalWatches[$watch->signal][$watch->id] = $watch;
                break;
        }
    }

    private function deactivate(Watch $watch): void
    {
        switch ($watch->type) {
            case CallbackType::Readable:
                unset($this->readWatches[$watch->fd][$watch->id]);
                if ($this->readWatches[$watch->fd] === []) {
                    unset($this->readWatches[$watch->fd]);
                    if (!isset($this->readWaiters[$watch->fd])) {
                        unset($this->readStreams[$watch->fd]);
                    }
                }
                break;
            case CallbackType::Writable:
                unset($this->writeWatches[$watch->fd][$watch->id]);
                if ($this->writeWatches[$watch->fd] === []) {
                    unset($this->writeWatches[$watch->fd]);
                    if (!isset($this->writeWaiters[$watch->fd])) {
                        unset($this->writeStreams[$watch->fd]);
                    }
                }
                break;
            case CallbackType::Defer:
                unset($this->pendingDefers[$watch->id]);
                break;
            case CallbackType::Delay:
            case CallbackType::Repeat:
                $this->timers->remove($watch);
                break;
            case CallbackType::Signal:
                unset($this->signalWatches[$watch->signal][$watch->id]);
                if ($this->signalWatches[$watch->signal] === []) {
                    unset($this->signalWatches[$watch->signal]);
                    @\pcntl_signal($watch->signal, \SIG_DFL);
                }
                break;
        }
    }

    // ---- The loop --------------------------------------------------------------------------

    /** Starts or resumes the loop fiber from {main}; returns the interrupt it yields, if any. */
    private function enterLoop(): ?\Closure
    {
        if ($this->loopFiber === null || $this->loopFiber->isTerminated()) {
            $this->loopFiber = new \Fiber($this->loopBody);
        }
        $interrupt = $this->loopFiber->isStarted() ? $this->loopFiber->resume() : $this->loopFiber->start();
        \assert($interrupt === null || $interrupt instanceof \Closure);

        return $interrupt;
    }

    private function runLoop(): void
    {
        $this->stopped = false;
        while (true) {
            $this->drainQueue();
            if ($this->interrupt !== null) {
                $interrupt = $this->interrupt;
                $this->interrupt = null;
                \Fiber::suspend($interrupt);
                continue;
            }
            if ($this->stopped || $this->referenced <= 0) {
                return;
            }
            $this->tick();
        }
    }

    /**
     * Runs everything queued: microtasks first, then each callback followed by the microtasks it
     * queued. Fiber resumes happen right here in the loop fiber; closures and callbacks go to the
     * callback fiber, which drains the rest of both queues itself.
     */
    private function drainQueue(): void
    {
        while (true) {
            $entry = $this->microtasks[$this->microtaskHead] ?? null;
            if ($entry !== null && $entry[0] !== self::MICROTASK) {
                unset($this->microtasks[$this->microtaskHead]);
                $this->microtaskHead++;
                $this->resumeFiber($entry);
            } elseif ($entry !== null || isset($this->callbacks[$this->callbackHead])) {
                $entry = null;
                $callbackFiber = $this->callbackFiber ??= new \Fiber($this->callbackBody);
                $yielded = $callbackFiber->isStarted() ? $callbackFiber->resume() : $callbackFiber->start();
                if ($yielded !== $this->drained) {
                    // A callback suspended this fiber (it became a task's fiber): use a new one.
                    $this->callbackFiber = null;
                }
            } else {
                break;
            }
            if ($this->interrupt !== null) {
                return;
            }
        }
        $this->microtasks = [];
        $this->microtaskHead = 0;
        $this->callbacks = [];
        $this->callbackHead = 0;
    }

    private function runCallbackFiber(): void
    {
        $self = \Fiber::getCurrent();
        while (true) {
            while (true) {
                if (isset($this->microtasks[$this->microtaskHead])) {
                    $entry = $this->microtasks[$this->microtaskHead];
                    unset($this->microtasks[$this->microtaskHead]);
                    $this->microtaskHead++;
                    if ($entry[0] === self::MICROTASK) {
                        $this->runMicrotask($entry[1], $entry[2]);
                    } else {
                        $this->resumeFiber($entry);
                    }
                    // Holding the entry while suspended would keep its closure's captures alive.
                    $entry = null;
                } elseif (isset($this->callbacks[$this->callbackHead])) {
                    $watch = $this->callbacks[$this->callbackHead];
                    unset($this->callbacks[$this->callbackHead]);
                    $this->callbackHead++;
                    $this->runCallback($watch);
                    $watch = null;
                } else {
                    break;
                }
                if ($this->callbackFiber !== $self) {
                    return; // this fiber was handed over to a task, which has now finished
                }
                if ($this->interrupt !== null) {
                    break;
                }
            }
            \Fiber::suspend($this->drained);
        }
    }

    /** @param array{int, mixed, mixed} $entry */
    private function resumeFiber(array $entry): void
    {
        $fiber = $entry[1];
        \assert($fiber instanceof \Fiber);
        if ($fiber->isTerminated()) {
            return; // destroyed by the cycle collector while it waited
        }
        $outer = $this->resumedFiber;
        $this->resumedFiber = $fiber;
        try {
            if ($entry[0] === self::RESUME) {
                $fiber->resume($entry[2]);
            } else {
                $error = $entry[2];
                \assert($error instanceof \Throwable);
                $fiber->throw($error);
            }
        } catch (\Throwable $exception) {
            $this->error($fiber->resume(...), $exception);
        } finally {
            $this->resumedFiber = $outer;
        }
    }

    /** @param array<mixed> $args */
    private function runMicrotask(mixed $closure, array $args): void
    {
        \assert($closure instanceof \Closure);
        try {
            $closure(...$args);
        } catch (\Throwable $exception) {
            $this->error($closure, $exception);
        } finally {
            // The callback fiber is shared: its fiber-local values must not reach the next one.
            FiberLocal::clear();
        }
    }

    private function runCallback(Watch $watch): void
    {
        if (!$watch->invokable || !isset($this->watches[$watch->id])) {
            return; // disabled or cancelled after its event was seen
        }
        $type = $watch->type;
        if ($type === CallbackType::Delay || $type === CallbackType::Defer) {
            $this->cancel($watch->id);
        } elseif ($type === CallbackType::Repeat) {
            $watch->invokable = false;
            $watch->expiration = \hrtime(true) / 1e9 + $watch->interval;
            $this->timers->insert($watch);
        } elseif ($type === CallbackType::Signal) {
            $watch->invokable = false;
        }
        try {
            $result = match ($type) {
                CallbackType::Readable, CallbackType::Writable => ($watch->closure)($watch->id, $watch->stream),
                CallbackType::Signal => ($watch->closure)($watch->id, $watch->signal),
                default => ($watch->closure)($watch->id),
            };
            if ($result !== null) {
                throw InvalidCallbackError::nonNullReturn($watch->id, $watch->closure);
            }
        } catch (\Throwable $exception) {
            $this->error($watch->closure, $exception);
        } finally {
            FiberLocal::clear();
        }
    }

    private function error(\Closure $closure, \Throwable $exception): void
    {
        $handler = $this->errorHandler;
        if ($handler === null) {
            $this->interrupt = static fn () => throw ($exception instanceof UncaughtThrowable
                ? $exception
                : UncaughtThrowable::throwingCallback($closure, $exception));

            return;
        }
        // Its own fiber, so the handler may suspend without holding up the loop.
        (new \Fiber(function () use ($handler, $exception): void {
            try {
                $handler($exception);
            } catch (\Throwable $handlerError) {
                $this->interrupt = static fn () => throw ($handlerError instanceof UncaughtThrowable
                    ? $handlerError
                    : UncaughtThrowable::throwingErrorHandler($handler, $handlerError));
            }
        }))->start();
    }

    /** One poll: queue the defers, wait for streams/timers/signals, queue what is due. */
    private function tick(): void
    {
        $timeout = null;
        if ($this->pendingDefers !== []) {
            foreach ($this->pendingDefers as $watch) {
                $watch->invokable = true;
                $this->callbacks[] = $watch;
            }
            $this->pendingDefers = [];
            $timeout = 0.0;
        }
        if ($this->signalWatches !== []) {
            \pcntl_signal_dispatch();
            if ($this->caughtSignals !== []) {
                $this->queueSignals();
                $timeout = 0.0;
            }
        }
        $nextTimer = $this->timers->peek();
        if ($timeout === null && $nextTimer !== null) {
            $timeout = \max(0.0, $nextTimer - \hrtime(true) / 1e9);
        }

        if ($this->readStreams !== [] || $this->writeStreams !== []) {
            if ($this->lastPollWasSmall && $timeout !== 0.0) {
                // Poll batching: let a few more events arrive, then take them in one poll.
                $pause = $timeout === null ? $this->batchDelay : \min($timeout, $this->batchDelay);
                \usleep((int) ($pause * 1e6)); // the loop's own wait: blocking is allowed here
                if ($timeout !== null) {
                    $timeout = \max(0.0, $timeout - $pause);
                }
            }
            $this->poll($timeout);
        } elseif ($timeout === null) {
            // Only signal callbacks keep the loop alive: sleep until one arrives.
            \usleep(1_000_000); // the loop's own wait (a signal ends it): blocking is allowed here
        } elseif ($timeout > 0) {
            \usleep((int) \ceil($timeout * 1e6)); // the loop's own wait for a timer: blocking is allowed here
        }

        if ($this->signalWatches !== []) {
            \pcntl_signal_dispatch();
            if ($this->caughtSignals !== []) {
                $this->queueSignals();
            }
        }
        // Only loop code ran since the peek (a timer added by a foreign signal handler waits a tick).
        if ($nextTimer !== null) {
            $now = \hrtime(true) / 1e9;
            while (($watch = $this->timers->extract($now)) !== null) {
                $watch->invokable = true;
                $this->callbacks[] = $watch;
            }
        }
    }

    private function poll(?float $timeout): void
    {
        $read = $this->readStreams;
        $write = $this->writeStreams;
        $except = null;
        if ($timeout === null) {
            $seconds = null;
            $microseconds = null;
        } else {
            $seconds = (int) $timeout;
            $microseconds = (int) (($timeout - $seconds) * 1e6);
        }
        $ready = @\stream_select($read, $write, $except, $seconds, $microseconds);
        if ($ready === false) {
            $this->pollFailed();

            return;
        }
        if ($this->batchDelay > 0) {
            $this->lastPollWasSmall = $ready > 0 && $ready < $this->batchBelow;
        }
        if ($ready === 0) {
            return;
        }
        // stream_select() keeps the keys: they are the fds.
        foreach ($read as $fd => $stream) {
            $waiter = $this->readWaiters[$fd] ?? null;
            if ($waiter !== null) {
                unset($this->readWaiters[$fd]);
                $this->referenced--;
                if (!isset($this->readWatches[$fd])) {
                    unset($this->readStreams[$fd]);
                }
                if ($waiter === $this->inlineWaiter) {
                    $this->inlineReady = true;
                } else {
                    $waiter->resume();
                }
            }
            foreach ($this->readWatches[$fd] ?? [] as $watch) {
                $watch->invokable = true;
                $this->callbacks[] = $watch;
            }
        }
        foreach ($write as $fd => $stream) {
            $waiter = $this->writeWaiters[$fd] ?? null;
            if ($waiter !== null) {
                unset($this->writeWaiters[$fd]);
                $this->referenced--;
                if (!isset($this->writeWatches[$fd])) {
                    unset($this->writeStreams[$fd]);
                }
                if ($waiter === $this->inlineWaiter) {
                    $this->inlineReady = true;
                } else {
                    $waiter->resume();
                }
            }
            foreach ($this->writeWatches[$fd] ?? [] as $watch) {
                $watch->invokable = true;
                $this->callbacks[] = $watch;
            }
        }
    }

    private function pollFailed(): void
    {
        $error = \error_get_last();
        \error_clear_last();
        $message = $error['message'] ?? 'unknown error';
        if (\stripos($message, 'unable to select [4]') !== false) {
            return; // EINTR: a signal arrived; its callbacks are queued right after the poll
        }
        if (\str_contains($message, 'FD_SETSIZE')) {
            $this->evictUnselectableStreams();

            return;
        }

        throw new \Error('stream_select() failed: ' . $message);
    }

    /**
     * A stream with a descriptor numbered 1024 or above makes every stream_select() fail
     * (FD_SETSIZE), which would stop the whole loop. PHP does not tell descriptor numbers, so
     * each watched stream is tried alone; those that fail leave the poll, and their waiters and
     * callbacks get a DescriptorLimitException instead of the loop dying.
     */
    private function evictUnselectableStreams(): void
    {
        foreach ([true, false] as $reading) {
            foreach ($reading ? $this->readStreams : $this->writeStreams as $fd => $stream) {
                $read = $reading ? [$stream] : null;
                $write = $reading ? null : [$stream];
                $except = null;
                if (@\stream_select($read, $write, $except, 0) !== false) {
                    continue;
                }
                \error_clear_last();
                $error = new DescriptorLimitException(
                    'A stream\'s descriptor is numbered 1024 or above, which stream_select() cannot watch (FD_SETSIZE). '
                    . 'Keep fewer connections open per worker (bin/bobbin serve --max-connections) or run more workers.',
                );
                $waiter = $reading ? ($this->readWaiters[$fd] ?? null) : ($this->writeWaiters[$fd] ?? null);
                $watches = $reading ? ($this->readWatches[$fd] ?? []) : ($this->writeWatches[$fd] ?? []);
                if ($reading) {
                    unset($this->readStreams[$fd], $this->readWaiters[$fd]);
                } else {
                    unset($this->writeStreams[$fd], $this->writeWaiters[$fd]);
                }
                if ($waiter !== null) {
                    $this->referenced--;
                    $waiter->throw($error);
                }
                foreach ($watches as $watch) {
                    $this->disable($watch->id);
                    $this->error($watch->closure, $error);
                }
            }
        }
    }

    private function queueSignals(): void
    {
        foreach ($this->caughtSignals as $signal) {
            foreach ($this->signalWatches[$signal] ?? [] as $watch) {
                $watch->invokable = true;
                $this->callbacks[] = $watch;
            }
        }
        $this->caughtSignals = [];
    }
}
