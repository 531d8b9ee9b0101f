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

    /** Declares that a failure of this future is expected and need not be reported. */
    public function ignore(): self
    {
        $this->state->markHandled();

        return $this;
    }

    /**
     * @return T
     * @throws CancelledException when $cancellation is requested first (the task goes on)
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
     * Awaits every future; the first failure is thrown. Keys are preserved.
     *
     * @template K of array-key
     * @template V
     * @param iterable<K, Future<V>> $futures
     * @return array<K, V>
     */
    public static function awaitAll(iterable $futures, ?Cancellation $cancellation = null): array
    {
        $results = [];
        foreach ($futures as $key => $future) {
            $results[$key] = $future->await($cancellation);
        }

        return $results;
    }

    /**
     * Awaits the first future to succeed. When all fail, throws a CompositeException with every
     * error.
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
}
