<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Internal\MessageBuffer;
use Closure;

/**
 * Messages of one SUB, read one by one with next(). Its buffer is bounded
 * (ConnectionConfig::$pendingMessagesLimit/$pendingBytesLimit): a reader that cannot keep up
 * loses the newest messages, counted by dropped() and reported once per episode to the
 * connection's error handler, instead of stalling the connection for everyone else.
 * Survives reconnects: the connection subscribes it again.
 */
final class Subscription
{
    use OwnsResources;

    /** Messages delivered to it so far (for an auto-unsubscribe after a number of them). */
    public int $delivered = 0;
    /** Unsubscribe once this many messages in all were delivered; null: no limit. */
    public ?int $max = null;

    /**
     * @param Closure(self, ?int): void $unsubscribe told by unsubscribe()/autoUnsubscribe()
     * @param Closure(self, ?float, ?Cancellation): void $drain told by drain()
     */
    public function __construct(
        public readonly int $sid,
        public readonly string $subject,
        public readonly ?string $queueGroup,
        private readonly MessageBuffer $buffer,
        private readonly Closure $unsubscribe,
        private readonly Closure $drain,
    ) {
    }

    /**
     * The next message, waiting up to $timeout seconds (null: no limit) or until $cancellation.
     *
     * @throws SubscriptionClosedException once it ended and its buffered messages were read
     * @throws \Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public function next(?float $timeout = null, ?Cancellation $cancellation = null): Message
    {
        return $this->buffer->pop($timeout, $cancellation);
    }

    /** The next buffered message, or null without waiting. */
    public function tryNext(): ?Message
    {
        return $this->buffer->tryPop();
    }

    /** Stops the delivery now; messages already buffered can still be read. */
    public function unsubscribe(): void
    {
        ($this->unsubscribe)($this, null);
    }

    /**
     * Unsubscribes and waits for the server to confirm it (a PING round trip): every message the
     * server gave this subscription before it saw the UNSUB is then in the buffer (tryNext()), none
     * is lost in flight. A queue group member that leaves needs this: the server may have picked
     * it for messages nobody else will see.
     *
     * @throws \Bobbin\Nats\Exception\NatsException|\Bobbin\Async\CancelledException
     */
    public function drain(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        ($this->drain)($this, $timeout, $cancellation);
    }

    /** Lets the server deliver $messages more (counted from now), then end the subscription. */
    public function autoUnsubscribe(int $messages): void
    {
        if ($messages < 1) {
            throw new \InvalidArgumentException('An auto-unsubscribe needs at least one message');
        }
        ($this->unsubscribe)($this, $this->delivered + $messages);
    }

    /** Messages buffered, not read yet. */
    public function pending(): int
    {
        return $this->buffer->count();
    }

    /** Messages dropped because the buffer was full (a slow consumer). */
    public function dropped(): int
    {
        return $this->buffer->dropped;
    }

    public function isClosed(): bool
    {
        return $this->buffer->isEnded();
    }

    /**
     * @internal the connection's reader hands over a message; false when it was dropped
     */
    public function deliver(Message $message): bool
    {
        $this->delivered++;

        return $this->buffer->push($message);
    }

    /** @internal */
    public function end(\Throwable $reason): void
    {
        $this->buffer->end($reason);
    }

    /** @internal the subscription has just started dropping (a slow-consumer episode begins) */
    public function startedDropping(): bool
    {
        return $this->buffer->startedDropping;
    }
}
