<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * Requested automatically once $seconds have passed.
 *
 * The timer keeps the loop alive only while a wait is subscribed to it: a wait with a deadline
 * always ends by that deadline (even in a plain script where nothing else is pending), while a
 * timeout nobody waits on never holds the process open. Call dispose() when the guarded work is
 * done early so the timer is removed at once instead of at its deadline.
 */
final class TimeoutCancellation implements Cancellation
{
    private readonly CancellationSource $source;
    private ?string $timerId;
    /** @var array<string, true> subscriptions still waiting */
    private array $waiting = [];

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
        $id = $this->source->subscribe($callback);
        if ($this->timerId !== null) {
            if ($this->waiting === []) {
                EventLoop::reference($this->timerId);
            }
            $this->waiting[$id] = true;
        }

        return $id;
    }

    public function unsubscribe(string $id): void
    {
        $this->source->unsubscribe($id);
        if (!isset($this->waiting[$id])) {
            return;
        }
        unset($this->waiting[$id]);
        if ($this->waiting === [] && $this->timerId !== null) {
            EventLoop::unreference($this->timerId);
        }
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
