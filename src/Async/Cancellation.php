<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;

/**
 * A request to abandon a pending wait. Every primitive that suspends accepts one.
 *
 * Callbacks are never invoked from inside subscribe(): callers check isRequested() first,
 * so a subscriber is only ever called from the loop, after the waiter has suspended.
 */
interface Cancellation
{
    /**
     * @param Closure(CancelledException): void $callback
     * @return string an id for unsubscribe()
     */
    public function subscribe(Closure $callback): string;

    public function unsubscribe(string $id): void;

    public function isRequested(): bool;

    /** @throws CancelledException */
    public function throwIfRequested(): void;
}
