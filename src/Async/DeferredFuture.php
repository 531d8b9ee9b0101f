<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Internal\FutureState;

/**
 * The producer side of a Future: hand out future(), later complete() or fail() it once.
 *
 * @template T = mixed
 */
final class DeferredFuture
{
    /** @var FutureState<T> */
    private readonly FutureState $state;
    /** @var Future<T> */
    private readonly Future $future;

    public function __construct()
    {
        $this->state = new FutureState();
        $this->future = new Future($this->state);
    }

    /** @return Future<T> */
    public function future(): Future
    {
        return $this->future;
    }

    public function isComplete(): bool
    {
        return $this->state->isComplete();
    }

    /** @param T $value */
    public function complete(mixed $value = null): void
    {
        $this->state->complete($value);
    }

    public function fail(\Throwable $error): void
    {
        $this->state->fail($error);
    }
}
