<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Bobbin\Async\Internal\FiberLocalStates;

use Revolt\EventLoop\Suspension;

/**
 * The suspension of one fiber (or of {main}) under BobbinDriver. Resuming never switches fibers
 * at once: it queues the fiber for the loop, which resumes it directly, without the callback
 * fiber or a closure in between.
 *
 * It holds its fiber weakly, and strongly only while suspended: whoever holds a suspension to
 * wake it keeps the fiber alive, and an idle suspension kept for reuse keeps nothing alive.
 *
 * @template T
 * @implements Suspension<T>
 * @internal
 */
final class FiberSuspension implements Suspension
{
    /** @var bool true between suspend() and the resume()/throw() that ends it (untyped: written on every wait; docs/ASYNC.md, Rules) */
    public $pending = false;
    /** @var \WeakReference<\Fiber<mixed, mixed, mixed, mixed>>|null */
    public readonly ?\WeakReference $fiberRef;
    /**
     * Untyped (the @var type is the analyser's): a write to a property declared with a class
     * type costs a class check at run time, and this one is written twice per wait
     * (docs/ASYNC.md, Rules).
     *
     * @var \Fiber<mixed, mixed, mixed, mixed>|null
     */
    private $suspendedFiber = null;

    /** @param \Fiber<mixed, mixed, mixed, mixed>|null $fiber */
    public function __construct(private readonly FiberScheduler $scheduler, ?\Fiber $fiber)
    {
        $this->fiberRef = $fiber === null ? null : \WeakReference::create($fiber);
    }

    public function suspend(): mixed
    {
        if ($this->pending) {
            throw new \Error('Must call resume() or throw() before calling suspend() again');
        }
        $fiber = \Fiber::getCurrent();
        if (!$this->belongsTo($fiber)) {
            throw new \Error('Must not call suspend() from another fiber');
        }
        $this->pending = true;
        if ($fiber !== null) {
            $this->suspendedFiber = $fiber;
            $saved = FiberLocalStates::$pending ? FiberLocalStates::leave() : null;
            // No finally here or in the waits above: it stops the tracing JIT (FAST_CALL), and
            // every wait would run interpreted. A fiber destroyed while it waits unwinds through
            // finally blocks only, so nothing below runs for it: it must not restore its state
            // into whoever destroyed it, and its suspension goes with it.
            try {
                $value = \Fiber::suspend();
            } catch (\Throwable $error) {
                $this->suspendedFiber = null;
                if ($error instanceof \FiberError) {
                    $this->pending = false;
                }
                if ($saved !== null) {
                    FiberLocalStates::enter($saved);
                }

                throw $error;
            }
            $this->suspendedFiber = null;
            if ($saved !== null) {
                FiberLocalStates::enter($saved);
            }

            return $value;
        }

        return $this->scheduler->runFromMain($this);
    }

    /**
     * Whether this is $fiber's suspension ({main}'s for null). A fiber's suspension outlives the
     * fiber only as an idle object; it never counts as {main}'s.
     *
     * @param \Fiber<mixed, mixed, mixed, mixed>|null $fiber
     */
    public function belongsTo(?\Fiber $fiber): bool
    {
        return $this->fiberRef === null ? $fiber === null : $fiber !== null && $this->fiberRef->get() === $fiber;
    }

    public function resume(mixed $value = null): void
    {
        if (!$this->pending) {
            throw new \Error('Must call suspend() before calling resume()');
        }
        $this->pending = false;
        if ($this->suspendedFiber !== null) {
            $this->scheduler->scheduleResume($this->suspendedFiber, $value);
        } elseif ($this->fiberRef === null) {
            $this->scheduler->resumeMain($value);
        }
    }

    public function throw(\Throwable $throwable): void
    {
        if (!$this->pending) {
            throw new \Error('Must call suspend() before calling throw()');
        }
        $this->pending = false;
        if ($this->suspendedFiber !== null) {
            $this->scheduler->scheduleThrow($this->suspendedFiber, $throwable);
        } elseif ($this->fiberRef === null) {
            $this->scheduler->interruptWith(static fn () => throw $throwable);
        }
    }
}
