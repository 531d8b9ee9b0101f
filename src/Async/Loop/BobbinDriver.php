<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Bobbin\Async\LoopHeartbeat;
use Bobbin\Async\LoopHold;
use Revolt\EventLoop\CallbackType;
use Revolt\EventLoop\Driver;
use Revolt\EventLoop\Suspension;
use Revolt\EventLoop\UnsupportedFeatureException;

/**
 * Bobbin's event loop driver: Revolt's Driver contract, built for the cost of one wait, on a
 * Poller of its choice (SelectPoller: stream_select(); EpollPoller: epoll through FFI).
 *
 * Revolt's own StreamSelectDriver spends ~2.5 µs per wait on bookkeeping (a closure and a
 * callback-fiber hop per resume, a scan of every callback per tick, an extra non-blocking poll
 * after every busy tick, an error handler swapped around each poll). Here:
 *  - resuming a suspension queues the fiber itself and the loop resumes it directly;
 *  - a fiber can wait on a stream without a callback at all (awaitReadable()/awaitWritable(),
 *    used by Bobbin\Async\StreamWatcher), so readiness goes from the poll straight to the fiber;
 *  - counts of referenced callbacks are kept, never recomputed;
 *  - the poll blocks whenever nothing is queued.
 *
 * The parts, along the seams Revolt's drivers have: FiberScheduler (run queue, loop and callback
 * fibers, {main}), CallbackRegistry (callbacks and their state, timers, signals), StreamInterest
 * (who waits for which stream) and the Poller. This class wires them and runs a tick.
 *
 * Optional poll batching (PERFORMANCE-NOTES idea 1): with $batchDelay > 0, a tick that found
 * fewer than $batchBelow ready streams is followed by a pause of $batchDelay seconds before the
 * next poll, so the next poll finds more at once. It trades latency for CPU; off by default.
 *
 * Over 400 lines on purpose: the driver's whole Revolt contract (callbacks of every kind,
 * enable/disable/reference, the poll) in one class, whose per-turn path makes no extra calls
 * (docs/ASYNC.md).
 */
final class BobbinDriver implements Driver
{
    private readonly FiberScheduler $scheduler;
    private readonly CallbackRegistry $registry;
    private readonly StreamInterest $streams;
    private bool $lastPollWasSmall = false;
    /** A stretch of work before a poll longer than this makes the poll's time too late for what it found (default). */
    private const LATE_AFTER_MILLISECONDS = 5;

    // The clock readings are untyped, typed by @var: written on every turn of the loop, and PHP
    // 8.2's tracing JIT calls a checking helper for each write to a typed property (docs/ASYNC.md, Rules).
    /** @var float when the last poll returned (microtime): when what it found ready was found */
    public $polledAt = 0.0;
    /** @var float when the last poll of streams returned (polledAt, unless the turn had no stream to poll) */
    private $streamsPolledAt = 0.0;
    /** @var float when the loop went to its last poll: [previous polledAt, idleAt] is the stretch of work before it */
    private $idleAt = 0.0;
    /** @var float */
    private $previousPolledAt = 0.0;
    /** Told when the loop goes to wait and when it comes back (a watchdog of blocking code). */
    public ?LoopHeartbeat $heartbeat = null;
    /** A BlockProbe asked for timed hand-overs (timeHandOvers()). */
    private bool $probeTimesHandOvers = false;

    /**
     * @param float $batchDelay seconds to pause after a tick with fewer than $batchBelow ready streams (0: off)
     * @param float $lateAfter a stretch of work longer than this makes arrivalTime() ask the kernel
     */
    public function __construct(
        private readonly Poller $poller = new SelectPoller(),
        private readonly float $batchDelay = 0.0,
        private readonly int $batchBelow = 4,
        private readonly float $lateAfter = self::LATE_AFTER_MILLISECONDS / 1e3,
    ) {
        if ($batchDelay < 0 || $batchDelay > 0.01) {
            throw new \ValueError('The poll batching delay must be between 0 and 0.01 s');
        }
        $this->scheduler = new FiberScheduler($this->tickIfAlive(...), $this->invoke(...));
        $this->streams = new StreamInterest($poller, $this->scheduler, $this->failWatch(...));
        $this->registry = new CallbackRegistry($this->streams, $this->scheduler);
    }

    /**
     * A driver on $poller as the environment asks for it: BOBBIN_LOOP_BATCH_US sets the poll
     * batching pause in microseconds (0, the default, turns it off); BOBBIN_LOOP_LATE_MS the
     * stretch of work after which arrivalTime() asks the kernel when bytes came (5 ms; a
     * profiler that slows the process down raises it, or every turn looks late).
     */
    public static function fromEnvironment(Poller $poller): self
    {
        return new self(
            $poller,
            self::wholeNumberFromEnvironment('BOBBIN_LOOP_BATCH_US', 'microseconds', 0) / 1e6,
            lateAfter: self::wholeNumberFromEnvironment('BOBBIN_LOOP_LATE_MS', 'milliseconds', self::LATE_AFTER_MILLISECONDS) / 1e3,
        );
    }

    private static function wholeNumberFromEnvironment(string $name, string $unit, int $default): int
    {
        $value = \getenv($name);
        if ($value === false || $value === '') {
            return $default;
        }
        if (!\ctype_digit($value)) {
            throw new \ValueError(\sprintf('%s must be a whole number of %s, got "%s"', $name, $unit, $value));
        }

        return (int) $value;
    }

    /** The most descriptors this driver can watch (see Poller::descriptorCeiling()); null: no own limit. */
    public function descriptorCeiling(): ?int
    {
        return $this->poller->descriptorCeiling();
    }

    /**
     * Whether $stream has something to read right now (Poller::isReadableNow()): unlike
     * stream_select(), on epoll also for descriptors numbered 1024 and above.
     *
     * @param resource $stream
     */
    public function isReadableNow(mixed $stream): bool
    {
        return $this->poller->isReadableNow($stream);
    }

    /** Poller::waits(): a mark to ask stayedQuietSince() with later. */
    public function waits(): int
    {
        return $this->poller->waits();
    }

    /**
     * Poller::stayedQuietSince(), and the poll that says so returned less than $maxAge seconds
     * ago; false when not known (stream_select(), or no poll since).
     */
    public function stayedQuietSince(int $key, int $since, float $maxAge): bool
    {
        // The poller first: on select it always says no, and then no clock is read.
        return $this->poller->stayedQuietSince($key, $since) && \microtime(true) - $this->streamsPolledAt < $maxAge;
    }

    /** Which poller this driver waits with (SelectPoller or EpollPoller). */
    public function poller(): Poller
    {
        return $this->poller;
    }

    // ---- Running -------------------------------------------------------------------------

    public function run(): void
    {
        $this->scheduler->run();
    }

    public function stop(): void
    {
        $this->scheduler->stopped = true;
    }

    public function isRunning(): bool
    {
        return $this->scheduler->isRunning();
    }

    /** @return Suspension<mixed> */
    public function getSuspension(): Suspension
    {
        return $this->scheduler->fiberSuspension();
    }

    /**
     * getSuspension() with its concrete type, for the direct waits. The type is the docblock's
     * only, as are the suspension parameters' of the waits: PHP 8.2's JIT checks a declared class
     * type with a call on every pass (docs/ASYNC.md, Rules).
     *
     * @return FiberSuspension<mixed>
     */
    public function fiberSuspension()
    {
        return $this->scheduler->fiberSuspension();
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
        $registry = $this->registry;

        // count(), not === []: the JIT compares arrays by identity through a helper call.
        return $registry->referenced === 0 && $this->streams->watched === 0
            && \count($registry->signalWatches) === 0 && \count($registry->pendingDefers) === 0
            && $this->scheduler->interrupt === null && !$this->scheduler->hasQueued();
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
        $this->streams->addReader($stream, $suspension);
    }

    /**
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function awaitWritable(mixed $stream, FiberSuspension $suspension): void
    {
        $this->streams->addWriter($stream, $suspension);
    }

    /**
     * Withdraws a wait registered by awaitReadable() (a timeout, a cancellation, a close).
     * Returns false when $suspension no longer waits there (readiness already woke it).
     *
     * @param int $key the stream's resource id, (int) $stream
     * @param FiberSuspension<mixed> $suspension
     */
    public function abortReadWait(int $key, FiberSuspension $suspension): bool
    {
        return $this->streams->removeReader($key, $suspension);
    }

    /** @param FiberSuspension<mixed> $suspension */
    public function abortWriteWait(int $key, FiberSuspension $suspension): bool
    {
        return $this->streams->removeWriter($key, $suspension);
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
    public function waitReadable(mixed $stream, $suspension): void
    {
        $this->streams->addReader($stream, $suspension);
        // Catch and rethrow, not finally: a finally block on a fiber's wait stops the tracing
        // JIT (FAST_CALL), and the wait path of every connection then runs interpreted.
        try {
            $this->suspendUntilWoken($suspension);
        } catch (\Throwable $error) {
            $this->streams->removeReader((int) $stream, $suspension);
            throw $error;
        }
        $this->streams->removeReader((int) $stream, $suspension);
    }

    /**
     * waitReadable() for writability.
     *
     * @param resource $stream
     * @param FiberSuspension<mixed> $suspension the current fiber's
     */
    public function waitWritable(mixed $stream, $suspension): void
    {
        $this->streams->addWriter($stream, $suspension);
        // Catch and rethrow, not finally: a finally block on a fiber's wait stops the tracing
        // JIT (FAST_CALL), and the wait path of every connection then runs interpreted.
        try {
            $this->suspendUntilWoken($suspension);
        } catch (\Throwable $error) {
            $this->streams->removeWriter((int) $stream, $suspension);
            throw $error;
        }
        $this->streams->removeWriter((int) $stream, $suspension);
    }

    // ---- Callbacks -------------------------------------------------------------------------

    public function queue(\Closure $closure, mixed ...$args): void
    {
        $this->scheduler->queue($closure, $args);
    }

    public function defer(\Closure $closure): string
    {
        return $this->registry->add(CallbackType::Defer, $closure);
    }

    public function delay(float $delay, \Closure $closure): string
    {
        if ($delay < 0) {
            throw new \Error('Delay must be greater than or equal to zero');
        }

        return $this->registry->add(CallbackType::Delay, $closure, null, 0, $delay); // positional: a named argument is matched at run time
    }

    public function repeat(float $interval, \Closure $closure): string
    {
        if ($interval < 0) {
            throw new \Error('Interval must be greater than or equal to zero');
        }

        return $this->registry->add(CallbackType::Repeat, $closure, null, 0, $interval);
    }

    public function onReadable(mixed $stream, \Closure $closure): string
    {
        return $this->registry->add(CallbackType::Readable, $closure, $stream);
    }

    public function onWritable(mixed $stream, \Closure $closure): string
    {
        return $this->registry->add(CallbackType::Writable, $closure, $stream);
    }

    /**
     * When the bytes of $stream, found ready by the last poll, arrived (Unix time). After a
     * short stretch of work that poll's time is exact enough; after a long one (code that held
     * the loop) they may have waited through it: a TCP socket's kernel receive time says how
     * long, elsewhere the stretch's start is the bound (an over-estimate of at most the stretch).
     */
    public function arrivalTime(mixed $stream): float
    {
        if ($this->idleAt - $this->previousPolledAt < $this->lateAfter || $this->previousPolledAt <= 0.0) {
            return $this->polledAt;
        }
        $received = TcpArrival::of($stream);

        return $received === null ? $this->previousPolledAt : \max($this->previousPolledAt, \min($this->polledAt, $received));
    }

    /**
     * hrtime (ns) since when the fiber or callback running now has held the loop (or since the
     * loop came back from its last poll); 0 while the loop waits.
     */
    public function heldSince(): int
    {
        return $this->scheduler->runningSince;
    }

    /** Times every hand-over to a fiber or callback (heldSince() then names the running one's start), or only polls (unless holds are reported). */
    public function timeHandOvers(bool $timed): void
    {
        $this->probeTimesHandOvers = $timed;
        $this->scheduler->timeHandOversForProbe($timed);
    }

    /**
     * Calls $report each time one fiber, callback or microtask held the loop for $seconds or
     * longer without yielding, once it lets go (when the loop hands over to the next one or goes
     * to wait): found after the fact, so nothing is interrupted. It costs what timed hand-overs
     * cost (timeHandOvers()) and a comparison per hand-over. A fiber resumed by other code than
     * the loop (KeyedWaiters::runSettled()) counts as part of the callback that resumed it.
     * Null stops it.
     *
     * @param (\Closure(LoopHold): void)|null $report runs in the loop, between two hand-overs: it must not suspend
     */
    public function reportHolds(float $seconds, ?\Closure $report): void
    {
        if ($report !== null && !($seconds > 0.0)) {
            throw new \ValueError('A hold is reported past a positive number of seconds');
        }
        $this->scheduler->onHold = $report;
        $this->scheduler->holdLimit = $report === null ? \PHP_INT_MAX : (int) \round($seconds * 1e9);
        // Turns are timed, hand-overs only named (FiberScheduler::$watchesTurns), unless a probe times them.
        $this->scheduler->watchesTurns = $report !== null;
        $this->scheduler->timeHandOversForProbe($this->probeTimesHandOvers);
    }

    public function onSignal(int $signal, \Closure $closure): string
    {
        if (!\function_exists('pcntl_signal')) {
            throw new UnsupportedFeatureException('Signal handling requires the pcntl extension');
        }

        return $this->registry->add(CallbackType::Signal, $closure, null, $signal);
    }

    public function enable(string $callbackId): string
    {
        return $this->registry->enable($callbackId);
    }

    public function disable(string $callbackId): string
    {
        return $this->registry->disable($callbackId);
    }

    public function cancel(string $callbackId): void
    {
        $this->registry->cancel($callbackId);
    }

    public function reference(string $callbackId): string
    {
        return $this->registry->reference($callbackId);
    }

    public function unreference(string $callbackId): string
    {
        return $this->registry->unreference($callbackId);
    }

    public function setErrorHandler(?\Closure $errorHandler): void
    {
        $this->scheduler->errorHandler = $errorHandler;
    }

    public function getErrorHandler(): ?\Closure
    {
        return $this->scheduler->errorHandler;
    }

    public function getHandle(): mixed
    {
        return null;
    }

    public function getIdentifiers(): array
    {
        return $this->registry->identifiers();
    }

    /** The closure a callback runs (Async::loopCallbacks() tells where it was written). */
    public function callbackClosure(string $callbackId): \Closure
    {
        return $this->registry->get($callbackId)->closure;
    }

    public function getType(string $callbackId): CallbackType
    {
        return $this->registry->get($callbackId)->type;
    }

    public function isEnabled(string $callbackId): bool
    {
        return $this->registry->get($callbackId)->enabled;
    }

    public function isReferenced(string $callbackId): bool
    {
        return $this->registry->get($callbackId)->referenced;
    }

    /** @return array<string, array{type: CallbackType, enabled: bool, referenced: bool}> */
    public function __debugInfo(): array
    {
        return $this->registry->describe();
    }

    // ---- The tick --------------------------------------------------------------------------

    /**
     * Polls inline when the loop would poll next anyway and returns if that found the
     * registered stream ready; suspends otherwise.
     *
     * @param FiberSuspension<mixed> $suspension
     */
    private function suspendUntilWoken($suspension): void
    {
        $scheduler = $this->scheduler;
        $streams = $this->streams;
        // Inline only when the loop's next step would be this very poll: nothing is queued, and
        // the calling fiber hands control straight back to the loop when it suspends.
        if (!isset($scheduler->microtasks[$scheduler->microtaskHead]) && !isset($scheduler->callbacks[$scheduler->callbackHead])
            && $this->registry->pendingDefers === [] && $streams->inlineWaiter === null && $scheduler->interrupt === null
            && !$scheduler->stopped && $scheduler->callerYieldsToTheLoop()) {
            $streams->inlineWaiter = $suspension;
            // The poll ends the caller's stretch (the tick's loopWaits()); when it goes on
            // without suspending, the next stretch is the caller's again.
            $timed = $scheduler->timesHandOvers || $scheduler->watchesTurns;
            $code = $timed ? $scheduler->runningCode : null;
            $codeIn = $timed ? $scheduler->runningIn : null;
            try {
                $this->tick();
            } catch (\Throwable $tickError) {
                $streams->inlineWaiter = null;
                $streams->inlineReady = false;
                $streams->inlineError = null;
                throw $tickError;
            }
            $streams->inlineWaiter = null;
            $ready = $streams->inlineReady;
            $error = $streams->inlineError;
            $streams->inlineReady = false;
            $streams->inlineError = null;
            if ($error !== null) {
                throw $error;
            }
            if ($ready) {
                if ($timed) {
                    $scheduler->runningCode = $code;
                    $scheduler->runningIn = $codeIn;
                }

                return;
            }
        }
        $suspension->suspend();
    }

    /** The loop fiber's step after each run of the queue: false ends run(). */
    private function tickIfAlive(): bool
    {
        if ($this->registry->referenced <= 0 && $this->streams->waiting <= 0) {
            return false;
        }
        $this->tick();

        return true;
    }

    /** One poll: queue the defers, wait for streams/timers/signals, queue what is due. */
    private function tick(): void
    {
        $registry = $this->registry;
        $timeout = null;
        if ($registry->pendingDefers !== []) {
            $registry->queueDefers();
            $timeout = 0.0;
        }
        if ($registry->signalWatches !== [] && $registry->queueSignals()) {
            $timeout = 0.0;
        }
        $nextTimer = $registry->timers->peek();
        if ($timeout === null && $nextTimer !== null) {
            $timeout = \max(0.0, $nextTimer - \hrtime(true) / 1e9);
        }

        $polledStreams = false;
        $this->heartbeat?->idle();
        if ($this->scheduler->timesHandOvers || $this->scheduler->watchesTurns) {
            $this->scheduler->loopWaits(); // the turn's last hand-over ends: was it a hold?
        } else {
            $this->scheduler->runningSince = 0;
        }
        $this->previousPolledAt = $this->polledAt;
        $this->idleAt = \microtime(true);
        if ($this->streams->watched > 0) {
            if ($this->lastPollWasSmall && $timeout !== 0.0) {
                // Poll batching: let a few more events arrive, then take them in one poll.
                $pause = $timeout === null ? $this->batchDelay : \min($timeout, $this->batchDelay);
                \usleep((int) ($pause * 1e6)); // the loop's own wait: blocking is allowed here
                if ($timeout !== null) {
                    $timeout = \max(0.0, $timeout - $pause);
                }
            }
            $ready = $this->streams->poll($timeout);
            $polledStreams = true;
            if ($this->batchDelay > 0) {
                $this->lastPollWasSmall = $ready > 0 && $ready < $this->batchBelow;
            }
        } elseif ($timeout === null) {
            // Only signal callbacks keep the loop alive: sleep until one arrives.
            \usleep(1_000_000); // the loop's own wait (a signal ends it): blocking is allowed here
        } elseif ($timeout > 0) {
            \usleep((int) \ceil($timeout * 1e6)); // the loop's own wait for a timer: blocking is allowed here
        }

        $this->polledAt = \microtime(true);
        if ($polledStreams) {
            $this->streamsPolledAt = $this->polledAt;
        }
        $this->scheduler->runningSince = $now = \hrtime(true);
        $this->heartbeat?->busy($now);
        if ($registry->signalWatches !== []) {
            $registry->queueSignals();
        }
        // Only loop code ran since the peek (a timer added by a foreign signal handler waits a tick).
        if ($nextTimer !== null) {
            $registry->queueDueTimers($now / 1e9);
        }
    }

    /** @param Watch $watch untyped: the JIT checks a declared class with a call (docs/ASYNC.md, Rules) */
    private function invoke($watch): void
    {
        $this->registry->invoke($watch);
    }

    /** A stream callback whose stream left the poll for good: disabled, and its error reported. */
    private function failWatch(Watch $watch, \Throwable $error): void
    {
        $this->registry->disable($watch->id);
        $this->scheduler->error($watch->closure, $error);
    }
}
