<?php

declare(strict_types=1);

namespace Bobbin\Async\Internal;

use Bobbin\Async\ErrorReporter;
use Closure;
use Throwable;

/**
 * The shared state behind a Future and the DeferredFuture that completes it.
 *
 * @internal
 * @template T
 */
final class FutureState
{
    private bool $complete = false;
    private bool $handled = false;
    private mixed $result = null;
    private ?Throwable $error = null;
    /** @var array<int, Closure(?Throwable, mixed): void> */
    private array $callbacks = [];
    private int $nextId = 0;

    public function __destruct()
    {
        if ($this->error !== null && !$this->handled) {
            ErrorReporter::report($this->error, 'Unhandled error of a task nobody awaited');
        }
    }

    public function isComplete(): bool
    {
        return $this->complete;
    }

    /** @param T $value */
    public function complete(mixed $value): void
    {
        $this->settle(null, $value);
    }

    public function fail(Throwable $error): void
    {
        $this->settle($error, null);
    }

    public function markHandled(): void
    {
        $this->handled = true;
    }

    /** @return T */
    public function result(): mixed
    {
        $this->handled = true;
        if ($this->error !== null) {
            throw $this->error;
        }

        return $this->result;
    }

    /**
     * @param Closure(?Throwable, mixed): void $callback called once when the state settles
     */
    public function subscribe(Closure $callback): int
    {
        $id = $this->nextId++;
        $this->callbacks[$id] = $callback;

        return $id;
    }

    public function unsubscribe(int $id): void
    {
        unset($this->callbacks[$id]);
    }

    private function settle(?Throwable $error, mixed $value): void
    {
        if ($this->complete) {
            throw new \Error('The future is already complete');
        }
        $this->complete = true;
        $this->error = $error;
        $this->result = $value;
        $callbacks = $this->callbacks;
        $this->callbacks = [];
        if ($callbacks !== []) {
            $this->handled = true;
        }
        foreach ($callbacks as $callback) {
            $callback($error, $value);
        }
    }
}
