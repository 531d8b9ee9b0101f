<?php

declare(strict_types=1);

namespace Bobbin\Async\Loop;

use Revolt\EventLoop\Suspension;

/**
 * The suspension of one fiber (or of {main}) under SelectDriver. Resuming never switches fibers
 * at once: it queues the fiber for the loop, which resumes it directly, without the callback
 * fiber or a closure in between.
 *
 * @template T
 * @implements Suspension<T>
 * @internal
 */
final class FiberSuspension implements Suspension
{
    /** True between suspend() and the resume()/throw() that ends it. */
    public bool $pending = false;

    /** @param \Fiber<mixed, mixed, mixed, mixed>|null $fiber */
    public function __construct(private readonly SelectDriver $driver, private readonly ?\Fiber $fiber)
    {
    }

    public function suspend(): mixed
    {
        if ($this->pending) {
            throw new \Error('Must call resume() or throw() before calling suspend() again');
        }
        if (\Fiber::getCurrent() !== $this->fiber) {
            throw new \Error('Must not call suspend() from another fiber');
        }
        $this->pending = true;
        if ($this->fiber !== null) {
            try {
                return \Fiber::suspend();
            } catch (\FiberError $error) {
                $this->pending = false;

                throw $error;
            }
        }

        return $this->driver->runFromMain($this);
    }

    public function resume(mixed $value = null): void
    {
        if (!$this->pending) {
            throw new \Error('Must call suspend() before calling resume()');
        }
        $this->pending = false;
        if ($this->fiber !== null) {
            $this->driver->scheduleResume($this->fiber, $value);
        } else {
            $this->driver->interruptWith(static fn () => $value);
        }
    }

    public function throw(\Throwable $throwable): void
    {
        if (!$this->pending) {
            throw new \Error('Must call suspend() before calling throw()');
        }
        $this->pending = false;
        if ($this->fiber !== null) {
            $this->driver->scheduleThrow($this->fiber, $throwable);
        } else {
            $this->driver->interruptWith(static fn () => throw $throwable);
        }
    }
}
