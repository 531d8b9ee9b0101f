<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Bobbin\Async\LoopHold;
use Revolt\EventLoop\FiberLocal;
use Revolt\EventLoop\UncaughtThrowable;

/**
 * The fiber side of BobbinDriver: the run queue (fiber resumes, microtasks, callbacks whose
 * event was seen), the loop fiber, the callback fiber, the suspension of {main}, and where
 * uncaught errors go. It knows nothing of streams or timers: between two runs of the queue the
 * loop fiber calls $tick, which polls and queues what is due.
 *
 * The queues are public for the driver's hot paths (an isset() instead of a method call per
 * wait); only the driver and its parts touch them.
 *
 * Over 400 lines on purpose: the loop's scheduling core stays one class so that its hot path
 * (resume, suspend, the turn) makes no extra calls (docs/ASYNC.md, Rules).
 *
 * @internal
 */
final class FiberScheduler
{
    private const RESUME = 0;
    private const THROW = 1;
    private const MICROTASK = 2;

    /**
     * Run before anything else, in order: a Fiber to resume with null (readiness of a stream,
     * by far the most common: no array per resume), [RESUME, Fiber, value], [THROW, Fiber,
     * Throwable] and [MICROTASK, Closure, args]. A callback's resumes and queue() calls run
     * before the next callback, as Revolt promises.
     *
     * @var array<int, \Fiber<mixed, mixed, mixed, mixed>|array{int, mixed, mixed}>
     */
    public array $microtasks = [];
    /** @var int untyped, like the other properties written on every turn (docs/ASYNC.md, Rules) */
    public $microtaskHead = 0;
    /** @var array<int, Watch> callbacks whose event was seen, in order */
    public array $callbacks = [];
    /** @var int */
    public $callbackHead = 0;
    /**
     * The fiber the loop resumed last, while it runs. Untyped, like $lastSuspension (the @var
     * types are the analyser's): a write to a property declared with a class type costs a class
     * check at run time, and these are written on every resume (docs/ASYNC.md, Rules).
     *
     * @var \Fiber<mixed, mixed, mixed, mixed>|null
     */
    public $resumedFiber = null;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    public $callbackFiber = null;
    /**
     * How many callback fibers whose task has finished are kept to serve as the callback fiber
     * again. A callback that waits (a request that queries a database) takes the callback fiber
     * for its task, and the loop needs another: a new fiber maps, guards and names a C stack
     * (mmap, mprotect, prctl) and unmaps it when it ends, four system calls and a few page
     * faults per waiting request. Each kept fiber holds its stack's touched pages and its VM stack.
     */
    public const SPARE_FIBERS = 64;
    /** @var list<\Fiber<mixed, mixed, mixed, mixed>> suspended at the top of runCallbackFiber(), task done */
    private array $spareFibers = [];
    /**
     * hrtime (ns) when the loop last handed control to a fiber, a callback or a microtask (while
     * $timesHandOvers), or came back from a poll; 0 while it waits. How long that code has held
     * the loop, for BlockProbe.
     *
     * @var int
     */
    public $runningSince = 0;
    /**
     * Whether each hand-over is timed (one hrtime(), ~1,200 instructions per hello request):
     * only while a BlockProbe is installed or holds are reported; otherwise the poll's return is
     * the only mark.
     */
    public bool $timesHandOvers = false;
    /**
     * Holds are reported and hand-overs are not timed: each hand-over only names its code
     * (two writes, no clock), and the turn is timed once, at the loop's next wait (loopWaits()).
     * A turn past $holdLimit is reported with the turn's last code, and hand-overs are then timed
     * for PRECISE_TURNS turns, so that the code holding the loop again is named exactly. Timing
     * every hand-over cost ~4,400 instructions per hello request (docs/BENCHMARKS.md).
     */
    public bool $watchesTurns = false;
    /** Hand-overs are timed because a turn held the loop (not for a BlockProbe): turns left. */
    private int $preciseTurnsLeft = 0;
    private const PRECISE_TURNS = 10_000;
    /**
     * Nanoseconds one hand-over may hold the loop before $onHold hears of it, when the next
     * hand-over (or the loop's next wait) ends it: the clock read that starts one hand-over ends
     * the one before, so the check costs a comparison, not a clock read.
     *
     * @var int
     */
    public $holdLimit = \PHP_INT_MAX;
    /** @var (\Closure(LoopHold): void)|null */
    public ?\Closure $onHold = null;
    /**
     * What runs since $runningSince, while hand-overs are timed: the fiber the loop resumed, or
     * the callback or microtask; null for the loop's own work. Untyped: written per hand-over.
     *
     * @var \Fiber<mixed, mixed, mixed, mixed>|\Closure|null
     */
    public $runningCode = null;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null the fiber $runningCode runs in */
    public $runningIn = null;
    /** @var (\Closure(): mixed)|null handed to {main} when the loop fiber next yields */
    public ?\Closure $interrupt = null;
    private mixed $mainValue = null;
    public ?\Closure $errorHandler = null;
    public bool $stopped = false;

    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    private ?\Fiber $loopFiber = null;
    private readonly \Closure $loopBody;
    private readonly \Closure $callbackBody;
    /** What the callback fiber suspends with when the queue is done (anything else: a task took it). */
    private readonly \stdClass $drained;

    /** @var \WeakMap<object, \WeakReference<FiberSuspension<mixed>>> suspensions by fiber */
    private \WeakMap $suspensions;
    /** @var FiberSuspension<mixed>|null */
    private ?FiberSuspension $mainSuspension = null;
    /** @var FiberSuspension<mixed>|null */
    private $lastSuspension = null;

    /**
     * @param \Closure(): bool $tick polls once and queues what is due; false when nothing keeps the loop alive
     * @param \Closure(Watch): void $invoke runs one callback (may throw: the error goes to the handler)
     */
    public function __construct(private readonly \Closure $tick, private readonly \Closure $invoke)
    {
        $this->suspensions = new \WeakMap();
        $this->drained = new \stdClass();
        $this->loopBody = $this->runLoop(...);
        $this->callbackBody = $this->runCallbackFiber(...);
    }

    public function run(): void
    {
        if ($this->loopFiber?->isRunning()) {
            throw new \Error('The event loop is already running');
        }
        if (\Fiber::getCurrent() !== null) {
            throw new \Error(\sprintf("Can't call %s() within a fiber (i.e., outside of {main})", BobbinDriver::class . '::run'));
        }
        $interrupt = $this->enterLoop();
        if ($interrupt !== null) {
            $interrupt();

            throw new \Error('An interrupt from the event loop must throw');
        }
    }

    public function isRunning(): bool
    {
        return $this->loopFiber !== null && ($this->loopFiber->isRunning() || $this->loopFiber->isSuspended());
    }

    /**
     * Runs the loop for a suspension of {main} until it is resumed.
     *
     * @param FiberSuspension<mixed> $suspension
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

    /** @param \Fiber<mixed, mixed, mixed, mixed> $fiber queued to be resumed with $value */
    public function scheduleResume(\Fiber $fiber, mixed $value): void
    {
        $this->microtasks[] = $value === null ? $fiber : [self::RESUME, $fiber, $value];
    }

    /** @param \Fiber<mixed, mixed, mixed, mixed> $fiber queued to have $throwable thrown into it */
    public function scheduleThrow(\Fiber $fiber, \Throwable $throwable): void
    {
        $this->microtasks[] = [self::THROW, $fiber, $throwable];
    }

    /** @param \Closure(): mixed $interrupt handed to {main} as soon as the loop fiber can yield */
    public function interruptWith(\Closure $interrupt): void
    {
        $this->interrupt = $interrupt;
    }

    /**
     * Resumes {main} with $value. The value is held here, not in the interrupt closure: the
     * suspended loop fiber keeps that closure until {main} waits again, and a value kept there
     * (a connection {main} awaited) would outlive every reference {main} drops meanwhile.
     */
    public function resumeMain(mixed $value): void
    {
        $this->mainValue = $value;
        $this->interrupt = $this->takeMainValue(...);
    }

    private function takeMainValue(): mixed
    {
        $value = $this->mainValue;
        $this->mainValue = null;

        return $value;
    }

    /** @param array<mixed> $args */
    public function queue(\Closure $closure, array $args): void
    {
        $this->microtasks[] = [self::MICROTASK, $closure, $args];
    }

    /** Whether anything waits in the run queue. */
    public function hasQueued(): bool
    {
        return isset($this->microtasks[$this->microtaskHead]) || isset($this->callbacks[$this->callbackHead]);
    }

    /**
     * The suspension of the current fiber ({main}'s outside any), one per fiber. The type is the
     * docblock's only: it is asked for on every wait (docs/ASYNC.md, Rules).
     *
     * @return FiberSuspension<mixed>
     */
    public function fiberSuspension()
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

    /**
     * Whether the calling code gives control straight back to the loop when it suspends: {main},
     * the callback fiber, or a fiber the loop resumed (not a fiber some other code started).
     */
    public function callerYieldsToTheLoop(): bool
    {
        $fiber = \Fiber::getCurrent();

        return $fiber === null || $fiber === $this->resumedFiber || $fiber === $this->callbackFiber;
    }

    /** Hands $exception to the error handler, or ends run() with it when there is none. */
    public function error(\Closure $closure, \Throwable $exception): void
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
        $tick = $this->tick;
        while (true) {
            $this->drainQueue();
            if ($this->interrupt !== null) {
                $interrupt = $this->interrupt;
                $this->interrupt = null;
                \Fiber::suspend($interrupt);
                continue;
            }
            if ($this->stopped || !$tick()) {
                return;
            }
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
            if ($entry !== null && ($entry instanceof \Fiber || $entry[0] !== self::MICROTASK)) {
                unset($this->microtasks[$this->microtaskHead]);
                $this->microtaskHead++;
                $this->resumeFiber($entry);
            } elseif ($entry !== null || isset($this->callbacks[$this->callbackHead])) {
                $entry = null;
                $callbackFiber = $this->callbackFiber ??= \array_pop($this->spareFibers) ?? new \Fiber($this->callbackBody);
                $yielded = $callbackFiber->isStarted() ? $callbackFiber->resume() : $callbackFiber->start();
                if ($yielded !== $this->drained) {
                    // A callback suspended this fiber (it became a task's fiber): a spare or a new one next.
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
        \assert($self !== null);
        $invoke = $this->invoke;
        while (true) {
            while (true) {
                if (isset($this->microtasks[$this->microtaskHead])) {
                    $entry = $this->microtasks[$this->microtaskHead];
                    unset($this->microtasks[$this->microtaskHead]);
                    $this->microtaskHead++;
                    if ($entry instanceof \Fiber || $entry[0] !== self::MICROTASK) {
                        $this->resumeFiber($entry);
                    } else {
                        $this->runMicrotask($entry[1], $entry[2]);
                    }
                    // Holding the entry while suspended would keep its closure's captures alive.
                    $entry = null;
                } elseif (isset($this->callbacks[$this->callbackHead])) {
                    $watch = $this->callbacks[$this->callbackHead];
                    unset($this->callbacks[$this->callbackHead]);
                    $this->callbackHead++;
                    if ($this->timesHandOvers) {
                        $now = \hrtime(true);
                        if ($now - $this->runningSince >= $this->holdLimit) {
                            $this->held($now);
                        }
                        $this->runningSince = $now;
                        $this->runningCode = $watch->closure;
                        $this->runningIn = $self;
                    } elseif ($this->watchesTurns) {
                        $this->runningCode = $watch->closure;
                        $this->runningIn = $self;
                    }
                    try {
                        $invoke($watch);
                    } catch (\Throwable $exception) {
                        $this->error($watch->closure, $exception);
                    }
                    // The callback fiber is shared: its fiber-local values must not reach the next one.
                    FiberLocal::clear();
                    $watch = null;
                } else {
                    break;
                }
                if ($this->callbackFiber !== $self) {
                    // This fiber was handed over to a task, which has now finished: kept as a
                    // spare callback fiber (suspended below), or ended when enough are kept.
                    if (\count($this->spareFibers) >= self::SPARE_FIBERS) {
                        return;
                    }
                    $this->spareFibers[] = $self;
                    break;
                }
                if ($this->interrupt !== null) {
                    break;
                }
            }
            do {
                \Fiber::suspend($this->drained);
                // A spare goes on only once drainQueue() has made it the callback fiber again.
            } while ($this->callbackFiber !== $self);
        }
    }

    /** @param \Fiber<mixed, mixed, mixed, mixed>|array{int, mixed, mixed} $entry a fiber to resume with null, or [RESUME|THROW, fiber, value] */
    private function resumeFiber(\Fiber|array $entry): void
    {
        $fiber = $entry instanceof \Fiber ? $entry : $entry[1];
        \assert($fiber instanceof \Fiber);
        if ($fiber->isTerminated()) {
            return; // destroyed by the cycle collector while it waited
        }
        $outer = $this->resumedFiber;
        $this->resumedFiber = $fiber;
        if ($this->timesHandOvers) {
            $now = \hrtime(true);
            if ($now - $this->runningSince >= $this->holdLimit) {
                $this->held($now);
            }
            $this->runningSince = $now;
            $this->runningCode = $this->runningIn = $fiber;
        } elseif ($this->watchesTurns) {
            $this->runningCode = $this->runningIn = $fiber;
        }
        try {
            if ($entry instanceof \Fiber) {
                $fiber->resume();
            } elseif ($entry[0] === self::RESUME) {
                $fiber->resume($entry[2]);
            } else {
                $error = $entry[2];
                \assert($error instanceof \Throwable);
                $fiber->throw($error);
            }
        } catch (\Throwable $exception) {
            $this->resumedFiber = $outer;
            $this->error($fiber->resume(...), $exception);

            return;
        }
        // Not in a finally block: one stops the tracing JIT (FAST_CALL) on every resume.
        $this->resumedFiber = $outer;
    }

    /** @param array<mixed> $args */
    private function runMicrotask(mixed $closure, array $args): void
    {
        \assert($closure instanceof \Closure);
        if ($this->timesHandOvers) {
            $now = \hrtime(true);
            if ($now - $this->runningSince >= $this->holdLimit) {
                $this->held($now);
            }
            $this->runningSince = $now;
            $this->runningCode = $closure;
            // Called from the callback fiber only: a task the closure starts may take that fiber.
            $this->runningIn = $this->callbackFiber;
        } elseif ($this->watchesTurns) {
            $this->runningCode = $closure;
            $this->runningIn = $this->callbackFiber;
        }
        try {
            $closure(...$args);
        } catch (\Throwable $exception) {
            $this->error($closure, $exception);
        }
        FiberLocal::clear();
    }

    /** The loop is about to wait: the last hand-over of the turn ends here (BobbinDriver's tick, while hand-overs are timed). */
    public function loopWaits(): void
    {
        if ($this->holdLimit !== \PHP_INT_MAX) {
            $now = \hrtime(true);
            if ($now - $this->runningSince >= $this->holdLimit) {
                $this->held($now);
                if (!$this->timesHandOvers) {
                    // The turn held the loop, and only its last code is known: time each
                    // hand-over for a while, so that the next hold is named exactly.
                    $this->timesHandOvers = true;
                    $this->preciseTurnsLeft = self::PRECISE_TURNS;
                }
            } elseif ($this->preciseTurnsLeft > 0 && --$this->preciseTurnsLeft === 0) {
                $this->timesHandOvers = false;
            }
        }
        $this->runningSince = 0;
        $this->runningCode = $this->runningIn = null;
    }

    /** Hand-overs timed for a BlockProbe (true), or only while a hold calls for it (false). */
    public function timeHandOversForProbe(bool $timed): void
    {
        $this->preciseTurnsLeft = 0;
        $this->timesHandOvers = $timed;
    }

    /** The code that ran since $runningSince held the loop past $holdLimit: tell $onHold (the loop's own work is not reported). */
    private function held(int $now): void
    {
        $report = $this->onHold;
        $code = $this->runningCode;
        if ($report === null || $code === null || $this->runningSince === 0) {
            return;
        }
        try {
            $report(new LoopHold(($now - $this->runningSince) / 1e9, $code instanceof \Closure ? $code : null, $this->runningIn, $this->runningSince));
        } catch (\Throwable $exception) {
            $this->error($report, $exception);
        }
    }
}
