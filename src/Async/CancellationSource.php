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
    private int $nextId = 0;
    private ?CancelledException $reason = null;

    /**
     * @param (Closure(): void)|null $onFirstSubscriber called once, when the first waiter
     *        subscribes: whatever would cancel (a watch on a socket, a timer) can start only
     *        when someone waits, and costs nothing for a source nobody waits on
     */
    public function __construct(private ?Closure $onFirstSubscriber = null)
    {
    }

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
        if ($this->onFirstSubscriber !== null) {
            $onFirstSubscriber = $this->onFirstSubscriber;
            $this->onFirstSubscriber = null;
            $onFirstSubscriber();
        }

        return $id;
    }

    public function unsubscribe(string $id): void
    {
        unset($this->callbacks[$id]);
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
