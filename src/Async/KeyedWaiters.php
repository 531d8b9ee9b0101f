<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\FiberLocalStates;

use Revolt\EventLoop;
use Revolt\EventLoop\Suspension;

/**
 * Fibers waiting for values under integer keys (request ids), settled in batches and resumed
 * by direct hand-off.
 *
 * Made for one reader serving a crowd: a connection's reader finds many answers at once,
 * settle()s each, and when its own state is consistent again calls runSettled(), which resumes
 * the settled fibers right there, one after another, each until it next suspends. A resume
 * through the loop costs a queue entry, a loop turn and the suspension bookkeeping, three times
 * the fiber switch itself (measured in docs/IPC.md); with a thousand waiters that is most of a
 * request's cost.
 *
 * What a woken fiber does before it suspends again runs inside runSettled(): call it only where
 * the caller's state may be touched (never in the middle of parsing a buffer). If nobody calls
 * it, the loop does on its next turn, so no settled fiber is ever left behind.
 *
 * Waits in {main} (a plain script) and errors take the loop's usual path: failAll() and a
 * cancellation queue the throw instead of running the fiber inside the caller, since they are
 * raised where state may be half-changed.
 */
final class KeyedWaiters
{
    /** @var array<int, \Fiber<mixed, mixed, mixed, mixed>|Suspension<mixed>> waiting, oldest first */
    private array $waiting = [];
    /** @var list<\Fiber<mixed, mixed, mixed, mixed>> settled, not resumed yet */
    private array $settledFibers = [];
    /** @var list<mixed> their values (two lists: no array per answer) */
    private array $settledValues = [];
    private bool $runQueued = false;

    /**
     * Suspends the calling fiber (in {main}: runs the loop) until $key is settled, and returns
     * its value; throws what failAll() or $cancellation throw.
     *
     * @throws \LogicException when somebody already waits for $key
     */
    public function wait(int $key, ?Cancellation $cancellation = null): mixed
    {
        if (isset($this->waiting[$key])) {
            throw new \LogicException(\sprintf('A fiber already waits for key %d', $key));
        }
        $fiber = \Fiber::getCurrent();
        if ($cancellation === null && $fiber !== null) {
            // The crowd's path: nothing to subscribe, no suspension object.
            $this->waiting[$key] = $fiber;

            return FiberLocalStates::$pending ? self::suspendKeepingState() : \Fiber::suspend();
        }
        $cancellation?->throwIfRequested();
        $suspension = $fiber === null ? EventLoop::getSuspension() : null;
        $waiter = $this->waiting[$key] = $suspension ?? $fiber;
        \assert($waiter !== null);
        if ($cancellation === null) {
            return $suspension === null ? self::suspendKeepingState() : $suspension->suspend();
        }
        $cancellationId = $cancellation->subscribe(function (CancelledException $e) use ($key, $waiter): void {
            if (($this->waiting[$key] ?? null) === $waiter) {
                unset($this->waiting[$key]);
                self::throwLater($waiter, $e);
            }
        });
        try {
            return $suspension === null ? self::suspendKeepingState() : $suspension->suspend();
        } finally {
            $cancellation->unsubscribe($cancellationId);
        }
    }

    /** \Fiber::suspend() with the FiberLocalStates saved around it (as FiberSuspension does). */
    private static function suspendKeepingState(): mixed
    {
        if (!FiberLocalStates::$pending) {
            return \Fiber::suspend();
        }
        $saved = FiberLocalStates::leave();
        try {
            $value = \Fiber::suspend();
        } catch (\Throwable $error) {
            FiberLocalStates::enter($saved);

            throw $error;
        }
        FiberLocalStates::enter($saved);

        return $value;
    }

    /**
     * Hands $value to the waiter for $key: a fiber is resumed by the next runSettled() (or the
     * loop's next turn), {main} through the loop. False when nobody waits for $key (its wait was
     * cancelled), and the value is dropped.
     */
    public function settle(int $key, mixed $value): bool
    {
        $waiter = $this->waiting[$key] ?? null;
        if ($waiter === null) {
            return false;
        }
        unset($this->waiting[$key]);
        if ($waiter instanceof Suspension) {
            $waiter->resume($value);

            return true;
        }
        $this->settledFibers[] = $waiter;
        $this->settledValues[] = $value;
        if (!$this->runQueued) {
            $this->runQueued = true;
            EventLoop::queue($this->runSettled(...));
        }

        return true;
    }

    /**
     * Resumes every settled fiber in the order they were settled, each until it suspends again
     * or ends. An exception a fiber ends with goes to the loop's error handler.
     */
    public function runSettled(): void
    {
        if ($this->settledFibers === [] && !$this->runQueued) {
            return; // a reader's read that found only its own answer: nothing to resume
        }
        // A fiber resumed here may settle others, or call this again: each pass takes what is
        // settled so far, and a nested call finds only what came after.
        while ($this->settledFibers !== []) {
            $fibers = $this->settledFibers;
            $values = $this->settledValues;
            $this->settledFibers = [];
            $this->settledValues = [];
            foreach ($fibers as $i => $fiber) {
                try {
                    $fiber->resume($values[$i]);
                } catch (\Throwable $error) {
                    EventLoop::queue(static fn () => throw $error);
                }
            }
        }
        $this->runQueued = false;
    }

    /** Throws $error into every waiter not settled yet, through the loop. */
    public function failAll(\Throwable $error): void
    {
        $waiting = $this->waiting;
        $this->waiting = [];
        foreach ($waiting as $waiter) {
            self::throwLater($waiter, $error);
        }
    }

    /** The key waited for longest, null when nobody waits. */
    public function oldestKey(): ?int
    {
        return \array_key_first($this->waiting);
    }

    public function isWaiting(int $key): bool
    {
        return isset($this->waiting[$key]);
    }

    public function count(): int
    {
        return \count($this->waiting);
    }

    /** @param \Fiber<mixed, mixed, mixed, mixed>|Suspension<mixed> $waiter */
    private static function throwLater(\Fiber|Suspension $waiter, \Throwable $error): void
    {
        if ($waiter instanceof Suspension) {
            $waiter->throw($error);

            return;
        }
        EventLoop::queue(static function () use ($waiter, $error): void {
            $waiter->throw($error);
        });
    }
}
