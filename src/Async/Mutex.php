<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/** Mutual exclusion between fibers, FIFO fair. */
final class Mutex
{
    private readonly Semaphore $semaphore;

    public function __construct()
    {
        $this->semaphore = new Semaphore(1);
    }

    public function acquire(?Cancellation $cancellation = null): Lock
    {
        return $this->semaphore->acquire($cancellation);
    }

    public function isLocked(): bool
    {
        return $this->semaphore->available() === 0;
    }

    /**
     * @template T
     * @param Closure(): T $critical
     * @return T
     */
    public function synchronized(Closure $critical, ?Cancellation $cancellation = null): mixed
    {
        return $this->semaphore->synchronized($critical, $cancellation);
    }
}
