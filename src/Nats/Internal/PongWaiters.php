<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Async\DeferredFuture;

/**
 * The PINGs in flight, in the order they were sent (the server answers them in order): a
 * flush() waits for its PONG; a keep-alive PING has no waiter, and counts as unanswered until
 * any PONG comes.
 *
 * @internal
 */
final class PongWaiters
{
    /** @var list<DeferredFuture<null>|null> one per PING sent, in order (null: a keep-alive PING) */
    private array $waiters = [];
    /** Keep-alive PINGs sent since the last PONG. */
    public int $unanswered = 0;

    /** @return DeferredFuture<null> completed by the PONG to the PING about to be sent */
    public function expect(): DeferredFuture
    {
        /** @var DeferredFuture<null> $pong */
        $pong = new DeferredFuture();
        $this->waiters[] = $pong;

        return $pong;
    }

    public function keepAliveSent(): void
    {
        $this->unanswered++;
        $this->waiters[] = null;
    }

    public function pong(): void
    {
        $this->unanswered = 0;
        $waiter = \array_shift($this->waiters);
        $waiter?->complete();
    }

    /** The socket broke or the connection closed: every PING in flight is lost. */
    public function fail(\Throwable $reason): void
    {
        $waiters = $this->waiters;
        $this->waiters = [];
        $this->unanswered = 0;
        foreach ($waiters as $waiter) {
            $waiter?->fail($reason);
        }
    }
}
