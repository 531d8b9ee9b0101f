<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

use Bobbin\Async\Cancellation;
use Bobbin\Async\Lock;
use Bobbin\Async\Mutex;

/**
 * The way into an application under its Concurrency: a FIFO mutex for OneAtATime, nothing for
 * Concurrent. A request waiting at the gate gives up when its cancellation fires (its deadline
 * passed or its client left), leaving the queue without taking a turn.
 */
final class RequestGate
{
    private readonly ?Mutex $mutex;

    public function __construct(public readonly Concurrency $concurrency)
    {
        $this->mutex = $concurrency === Concurrency::OneAtATime ? new Mutex() : null;
    }

    /**
     * Waits for the request's turn; release the lock (if any) when the application is done
     * with the request, terminate work included.
     *
     * @throws \Bobbin\Async\CancelledException the request was cancelled while it waited
     */
    public function enter(?Cancellation $cancellation): ?Lock
    {
        return $this->mutex?->acquire($cancellation);
    }

    public function isBusy(): bool
    {
        return $this->mutex?->isLocked() ?? false;
    }
}
