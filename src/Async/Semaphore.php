<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\WaitQueue;
use Closure;

/**
 * At most N holders at a time; waiters are served first come, first served. A released permit
 * goes straight to the longest waiter, so a stream of new arrivals cannot starve it.
 */
final class Semaphore
{
    private int $available;
    private readonly WaitQueue $waiters;

    public function __construct(private readonly int $permits)
    {
        if ($permits < 1) {
            throw new \ValueError('A semaphore needs at least one permit');
        }
        $this->available = $permits;
        $this->waiters = new WaitQueue();
    }

    /** @throws CancelledException the waiter gave up; no permit is taken */
    public function acquire(?Cancellation $cancellation = null): Lock
    {
        if ($this->available > 0 && $this->waiters->isEmpty()) {
            $this->available--;

            return $this->newLock();
        }

        /** @var Lock */
        return $this->waiters->wait($cancellation);
    }

    public function tryAcquire(): ?Lock
    {
        if ($this->available > 0 && $this->waiters->isEmpty()) {
            $this->available--;

            return $this->newLock();
        }

        return null;
    }

    /**
     * Runs $critical while holding a permit, releasing it however $critical ends.
     *
     * @template T
     * @param Closure(): T $critical
     * @return T
     */
    public function synchronized(Closure $critical, ?Cancellation $cancellation = null): mixed
    {
        $lock = $this->acquire($cancellation);
        try {
            return $critical();
        } finally {
            $lock->release();
        }
    }

    public function available(): int
    {
        return $this->available;
    }

    public function permits(): int
    {
        return $this->permits;
    }

    public function waiting(): int
    {
        return $this->waiters->count();
    }

    private function newLock(): Lock
    {
        return new Lock(function (): void {
            if ($this->waiters->isEmpty()) {
                $this->available++;

                return;
            }
            // The permit passes hand to hand: the longest waiter gets a fresh Lock for it.
            $this->waiters->wakeFirst($this->newLock());
        });
    }
}
