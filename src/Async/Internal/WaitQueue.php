<?php

declare(strict_types=1);

namespace Bobbin\Async\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Revolt\EventLoop;
use Revolt\EventLoop\Suspension;

/**
 * A FIFO of suspended fibers, the building block of Semaphore and Channel. A waiter cancelled
 * while queued leaves the queue; a waiter already woken ignores a late cancellation, so a
 * permit or a value handed to it is never lost.
 *
 * @internal
 */
final class WaitQueue
{
    /** @var array<int, array{Suspension<mixed>, mixed}> suspension and the waiter's payload */
    private array $waiters = [];
    private int $nextId = 0;

    public function count(): int
    {
        return \count($this->waiters);
    }

    public function isEmpty(): bool
    {
        return $this->waiters === [];
    }

    /**
     * Suspends the current fiber until wakeFirst()/wakeAll() hands it a value.
     *
     * @param mixed $payload what the waker may read from the waiter (a channel sender's value)
     */
    public function wait(?Cancellation $cancellation, mixed $payload = null): mixed
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        $id = $this->nextId++;
        $this->waiters[$id] = [$suspension, $payload];
        $waiters = &$this->waiters;
        $cancellationId = $cancellation?->subscribe(static function (CancelledException $e) use (&$waiters, $id, $suspension): void {
            if (isset($waiters[$id])) {
                unset($waiters[$id]);
                $suspension->throw($e);
            }
        });
        if ($cancellationId === null) {
            return $suspension->suspend();
        }
        // Not in a finally block: one stops PHP's tracing JIT (FAST_CALL) on every wait.
        try {
            $value = $suspension->suspend();
        } catch (\Throwable $error) {
            $cancellation->unsubscribe($cancellationId);
            throw $error;
        }
        $cancellation->unsubscribe($cancellationId);

        return $value;
    }

    /**
     * Removes the longest-waiting fiber and resumes it with $value.
     *
     * @return array{bool, mixed} whether a waiter was woken, and its payload
     */
    public function wakeFirst(mixed $value = null): array
    {
        $first = $this->takeFirst();
        if ($first === null) {
            return [false, null];
        }
        $first[0]->resume($value);

        return [true, $first[1]];
    }

    /**
     * The longest waiter's payload, without waking it; $default when nobody waits.
     */
    public function firstPayload(mixed $default = null): mixed
    {
        $id = \array_key_first($this->waiters);

        return $id === null ? $default : $this->waiters[$id][1];
    }

    /** Removes the longest-waiting fiber and throws $error into it; false when nobody waits. */
    public function failFirst(\Throwable $error): bool
    {
        $first = $this->takeFirst();
        if ($first === null) {
            return false;
        }
        $first[0]->throw($error);

        return true;
    }

    /**
     * Removes the longest-waiting fiber's entry from the queue.
     *
     * @return array{Suspension<mixed>, mixed}|null its suspension and payload; null when nobody waits
     */
    private function takeFirst(): ?array
    {
        $id = \array_key_first($this->waiters);
        if ($id === null) {
            return null;
        }
        $first = $this->waiters[$id];
        unset($this->waiters[$id]);

        return $first;
    }

    /** Throws $error into every waiting fiber. */
    public function failAll(\Throwable $error): void
    {
        $waiters = $this->waiters;
        $this->waiters = [];
        foreach ($waiters as [$suspension]) {
            $suspension->throw($error);
        }
    }
}
