<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\WaitQueue;
use Revolt\EventLoop;

/**
 * Fibers waiting, first come first served, for something handed out one at a time (a pooled
 * connection), each for at most the same number of seconds.
 *
 * Made for a wait that happens on every request under load: a wait is an entry in a WaitQueue
 * and a suspension, no timer and no future of its own. Every waiter gets the same timeout, so
 * deadlines grow in arrival order and the longest waiter always has the earliest one: a single
 * loop timer, set for the first waiter's deadline, expires whoever is due when it fires and is
 * set again for the new first waiter. A waiter served early leaves its deadline behind; the
 * timer then finds nobody due and moves on. The timer keeps the loop alive only while somebody
 * waits.
 *
 * A waiter that was handed a value is out of the line: a timeout or cancellation arriving later
 * does not reach it, so nothing handed out is lost.
 */
final class WaitingLine
{
    /** Each waiter's payload is its deadline (microtime). */
    private readonly WaitQueue $waiters;
    /** The timer set for the first waiter's deadline, while one is set. */
    private ?string $timerId = null;
    private bool $timerReferenced = false;

    /**
     * @param float $timeout seconds each waiter waits at most
     * @param string $timeoutMessage the TimeoutException's message
     */
    public function __construct(private readonly float $timeout, private readonly string $timeoutMessage = 'Waited too long in line')
    {
        if ($timeout < 0) {
            throw new \ValueError('A waiting line needs a timeout of 0 seconds or more');
        }
        $this->waiters = new WaitQueue();
    }

    public function __destruct()
    {
        if ($this->timerId !== null) {
            EventLoop::cancel($this->timerId);
        }
    }

    public function count(): int
    {
        return $this->waiters->count();
    }

    /**
     * Suspends the calling fiber until handToFirst() hands it a value, and returns that value.
     *
     * @throws TimeoutException once the line's timeout has passed
     * @throws CancelledException what $cancellation throws, once requested
     */
    public function wait(?Cancellation $cancellation = null): mixed
    {
        $cancellation?->throwIfRequested();
        if ($this->timerId === null) {
            $this->timerId = EventLoop::delay($this->timeout, $this->expire(...));
            $this->timerReferenced = true;
        } elseif (!$this->timerReferenced) {
            EventLoop::reference($this->timerId);
            $this->timerReferenced = true;
        }

        return $this->waiters->wait($cancellation, \microtime(true) + $this->timeout);
    }

    /** Removes the longest waiter and resumes it with $value; false when nobody waits. */
    public function handToFirst(mixed $value): bool
    {
        if ($this->waiters->isEmpty() && !$this->timerReferenced) {
            return false; // the usual release of a pooled connection: one call, not three
        }
        [$woken] = $this->waiters->wakeFirst($value);
        $this->releaseTimerIfIdle();

        return $woken;
    }

    /** Removes the longest waiter and throws $error into it; false when nobody waits. */
    public function failFirst(\Throwable $error): bool
    {
        $failed = $this->waiters->failFirst($error);
        $this->releaseTimerIfIdle();

        return $failed;
    }

    /** Empties the line, throwing $error into every waiter. */
    public function failAll(\Throwable $error): void
    {
        $this->waiters->failAll($error);
        $this->releaseTimerIfIdle();
    }

    /** Nobody waits: the timer may stay set, but it no longer keeps the loop alive. */
    private function releaseTimerIfIdle(): void
    {
        if ($this->timerReferenced && $this->timerId !== null && $this->waiters->isEmpty()) {
            EventLoop::unreference($this->timerId);
            $this->timerReferenced = false;
        }
    }

    private function expire(): void
    {
        $this->timerId = null;
        $this->timerReferenced = false;
        $now = \microtime(true);
        while (($deadline = $this->waiters->firstPayload()) !== null) {
            \assert(\is_float($deadline));
            if ($deadline > $now) {
                // Deadlines grow in arrival order: everyone from here on waits on.
                $this->timerId = EventLoop::delay($deadline - $now, $this->expire(...));
                $this->timerReferenced = true;

                return;
            }
            $this->waiters->failFirst(new TimeoutException($this->timeoutMessage));
        }
    }
}
