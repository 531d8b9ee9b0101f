<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * A one-shot or repeating timer whose callback runs on the loop. Keep the object to cancel it;
 * timers are referenced (they keep the loop alive) unless unreference() is called.
 */
final class Timer
{
    private bool $cancelled = false;

    private function __construct(private readonly string $id)
    {
    }

    /** @param Closure(): mixed $callback its return value is ignored */
    public static function after(float $seconds, Closure $callback): self
    {
        ErrorReporter::installOnLoop();

        // A Revolt callback must return null: wrap, so a callback that returns a value is fine.
        return new self(EventLoop::delay(\max(0.0, $seconds), static function () use ($callback): void {
            $callback();
        }));
    }

    /** @param Closure(): mixed $callback its return value is ignored */
    public static function every(float $seconds, Closure $callback): self
    {
        if ($seconds <= 0.0) {
            throw new \ValueError('A repeating timer needs a positive interval');
        }
        ErrorReporter::installOnLoop();

        return new self(EventLoop::repeat($seconds, static function () use ($callback): void {
            $callback();
        }));
    }

    public function cancel(): void
    {
        $this->cancelled = true;
        EventLoop::cancel($this->id);
    }

    public function isCancelled(): bool
    {
        return $this->cancelled;
    }

    /** A timer that alone should not keep the process running (a metrics tick, a sweeper). */
    public function unreference(): self
    {
        EventLoop::unreference($this->id);

        return $this;
    }
}
