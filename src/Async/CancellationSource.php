<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * The owner side of a cancellation: hand out token(), call cancel() to abort every wait that
 * holds the token.
 */
final class CancellationSource implements Cancellation
{
    /** @var array<array-key, Closure(CancelledException): void> */
    private array $callbacks = [];
    /** @var int */
    private $nextId = 0;
    private ?CancelledException $reason = null;

    /** @var bool whether any wait has subscribed, ever: a request's server watches for its client leaving only then */
    private $waitedOn = false;

    public function token(): Cancellation
    {
        return $this;
    }

    public function cancel(?CancelledException $reason = null): void
    {
        if ($this->reason !== null) {
            return;
        }
        $this->reason = $reason ?? new CancelledException();
        $callbacks = $this->callbacks;
        $this->callbacks = [];
        foreach ($callbacks as $callback) {
            // Queued, not called: the canceller may itself be running inside the waiter's fiber.
            EventLoop::queue($callback, $this->reason);
        }
    }

    public function subscribe(Closure $callback): string
    {
        $id = (string) $this->nextId++;
        if ($this->reason !== null) {
            EventLoop::queue($callback, $this->reason);

            return $id;
        }
        $this->callbacks[$id] = $callback;
        $this->waitedOn = true;

        return $id;
    }

    public function unsubscribe(string $id): void
    {
        unset($this->callbacks[$id]);
    }

    /**
     * Whether something has waited on this cancellation (subscribed), even if it is done
     * waiting: whatever would cancel (a check that the client is still there) is worth doing
     * only then, and costs nothing for a source nobody waits on.
     */
    public function wasWaitedOn(): bool
    {
        return $this->waitedOn;
    }

    public function isRequested(): bool
    {
        return $this->reason !== null;
    }

    public function throwIfRequested(): void
    {
        if ($this->reason !== null) {
            throw $this->reason;
        }
    }
}
