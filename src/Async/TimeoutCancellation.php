<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * Requested automatically once $seconds have passed. The timer is unreferenced: a pending
 * timeout alone never keeps the loop alive. Call dispose() when the guarded work is done early
 * so the timer is removed at once instead of at its deadline.
 */
final class TimeoutCancellation implements Cancellation
{
    private readonly CancellationSource $source;
    private ?string $timerId;

    public function __construct(float $seconds, string $message = 'The operation timed out')
    {
        $this->source = new CancellationSource();
        $source = $this->source;
        $timerId = &$this->timerId;
        $this->timerId = EventLoop::unreference(EventLoop::delay(
            \max(0.0, $seconds),
            static function () use ($source, $message, &$timerId): void {
                $timerId = null;
                $source->cancel(new TimeoutException($message));
            },
        ));
    }

    public function __destruct()
    {
        $this->dispose();
    }

    public function dispose(): void
    {
        if ($this->timerId !== null) {
            EventLoop::cancel($this->timerId);
            $this->timerId = null;
        }
    }

    public function subscribe(Closure $callback): string
    {
        return $this->source->subscribe($callback);
    }

    public function unsubscribe(string $id): void
    {
        $this->source->unsubscribe($id);
    }

    public function isRequested(): bool
    {
        return $this->source->isRequested();
    }

    public function throwIfRequested(): void
    {
        $this->source->throwIfRequested();
    }
}
