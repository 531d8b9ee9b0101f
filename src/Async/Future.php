<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\FutureState;
use Revolt\EventLoop;
use Throwable;

/**
 * The eventual result of a task. await() suspends the calling fiber; called outside any fiber
 * (a plain script, PHP-FPM) it runs the event loop until the result is there, so the same
 * code works in both modes.
 *
 * @template-covariant T
 */
final class Future
{
    /** @param FutureState<T> $state */
    public function __construct(private readonly FutureState $state)
    {
    }

    /**
     * @template V
     * @param V $value
     * @return self<V>
     */
    public static function complete(mixed $value = null): self
    {
        $state = new FutureState();
        $state->complete($value);

        return new self($state);
    }

    /** @return self<never> */
    public static function error(Throwable $error): self
    {
        $state = new FutureState();
        $state->fail($error);

        return new self($state);
    }

    public function isComplete(): bool
    {
        return $this->state->isComplete();
    }

    /**
     * Declares that a failure of this future is expected and need not be reported.
     *
     * @return self<T>
     */
    public function ignore(): self
    {
        $this->state->markHandled();

        return $this;
    }

    /**
     * Returns the value, or throws whatever the task threw. Throws CancelledException (or
     * TimeoutException) when $cancellation is requested first; the task itself goes on. No
     * throws tag on purpose: a task may throw anything, and a narrow tag would make static
     * analysis call every catch of a task's own exception dead code.
     *
     * @return T
     */
    public function await(?Cancellation $cancellation = null): mixed
    {
        if ($this->state->isComplete()) {
            return $this->state->result();
        }
        $cancellation?->throwIfRequested();

        $suspension = EventLoop::getSuspension();
        $settled = false;
        $state = $this->state;
        $id = $state->subscribe(static function (?Throwable $error, mixed $value) use ($suspension, &$settled): void {
            if ($settled) {
                return;
            }
            $settled = true;
            $error !== null ? $suspension->throw($error) : $suspension->resume($value);
        });
        $cancellationId = $cancellation?->subscribe(
            static function (CancelledException $e) use ($suspension, $state, $id, &$settled): void {
                if ($settled) {
                    return;
                }
                $settled = true;
                $state->unsubscribe($id);
                $suspension->throw($e);
            },
        );

        try {
            /** @var T */
            return $suspension->suspend();
        } finally {
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }

    /**
     * Awaits every future and returns their values under the same keys, in the same order.
     * Fails fast: the first failure to happen (in time, not in key order) is thrown at once;
     * the other futures go on, and a later failure among them is reported as unhandled.
     *
     * @template K of array-key
     * @template V
     * @param iterable<K, Future<V>> $futures
     * @return array<K, V>
     */
    public static function awaitAll(iterable $futures, ?Cancellation $cancellation = null): array
    {
        $futures = \is_array($futures) ? $futures : \iterator_to_array($futures);
        $values = [];
        $pending = [];
        foreach ($futures as $key => $future) {
            if ($future->state->isComplete()) {
                $values[$key] = $future->state->result();
            } else {
                $pending[$key] = $future;
            }
        }
        if ($pending !== []) {
            self::awaitPending($pending, $values, $cancellation);
        }
        $results = [];
        foreach ($futures as $key => $future) {
            $results[$key] = $values[$key];
        }

        return $results;
    }

    /**
     * Awaits the first future to succeed. When all fail, throws a CompositeException with every
     * error. Failures are part of what awaitAny() handles: a future that fails after another
     * one won is not reported as unhandled.
     *
     * @template V
     * @param iterable<array-key, Future<V>> $futures
     * @return V
     */
    public static function awaitAny(iterable $futures, ?Cancellation $cancellation = null): mixed
    {
        $futures = \is_array($futures) ? $futures : \iterator_to_array($futures);
        if ($futures === []) {
            throw new \ValueError('awaitAny() needs at least one future');
        }
        foreach ($futures as $future) {
            $future->state->markHandled();
        }
        $cancellation?->throwIfRequested();

        $suspension = EventLoop::getSuspension();
        $errors = [];
        $pending = \count($futures);
        $settled = false;
        $subscriptions = [];
        foreach ($futures as $key => $future) {
            $subscriptions[$key] = $future->state->subscribe(
                static function (?Throwable $error, mixed $value) use ($suspension, $key, &$errors, &$pending, &$settled): void {
                    if ($settled) {
                        return;
                    }
                    if ($error === null) {
                        $settled = true;
                        $suspension->resume($value);

                        return;
                    }
                    $errors[$key] = $error;
                    if (--$pending === 0) {
                        $settled = true;
                        $suspension->throw(new CompositeException($errors));
                    }
                },
            );
            if ($future->isComplete()) {
                // Already-settled futures never call subscribers: read them directly.
                $future->state->unsubscribe($subscriptions[$key]);
                unset($subscriptions[$key]);
                try {
                    $value = $future->state->result();
                    foreach ($subscriptions as $k => $id) {
                        $futures[$k]->state->unsubscribe($id);
                    }

                    return $value;
                } catch (Throwable $error) {
                    $errors[$key] = $error;
                    if (--$pending === 0) {
                        throw new CompositeException($errors);
                    }
                }
            }
        }
        $cancellationId = $cancellation?->subscribe(static function (CancelledException $e) use ($suspension, &$settled): void {
            if (!$settled) {
                $settled = true;
                $suspension->throw($e);
            }
        });

        try {
            return $suspension->suspend();
        } finally {
            foreach ($subscriptions as $key => $id) {
                $futures[$key]->state->unsubscribe($id);
            }
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }

    /**
     * @param array<array-key, Future<mixed>> $pending
     * @param array<array-key, mixed> $values receives each value under its future's key
     */
    private static function awaitPending(array $pending, array &$values, ?Cancellation $cancellation): void
    {
        $cancellation?->throwIfRequested();
        $suspension = EventLoop::getSuspension();
        $remaining = \count($pending);
        $settled = false;
        $subscriptions = [];
        foreach ($pending as $key => $future) {
            $subscriptions[$key] = $future->state->subscribe(
                static function (?Throwable $error, mixed $value) use ($suspension, $key, &$values, &$remaining, &$settled): void {
                    if ($settled) {
                        return;
                    }
                    if ($error !== null) {
                        $settled = true;
                        $suspension->throw($error);

                        return;
                    }
                    $values[$key] = $value;
                    if (--$remaining === 0) {
                        $settled = true;
                        $suspension->resume();
                    }
                },
            );
        }
        $cancellationId = $cancellation?->subscribe(static function (CancelledException $e) use ($suspension, &$settled): void {
            if (!$settled) {
                $settled = true;
                $suspension->throw($e);
            }
        });

        try {
            $suspension->suspend();
        } finally {
            foreach ($subscriptions as $key => $id) {
                $pending[$key]->state->unsubscribe($id);
            }
            if ($cancellationId !== null) {
                $cancellation->unsubscribe($cancellationId);
            }
        }
    }
}
