<?php

declare(strict_types=1);

namespace Bobbin\Nats;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Nats\Internal\MessageBuffer;
use Closure;

/**
 * A reply subject of its own on the connection's shared inbox subscription (no SUB of its own):
 * for conversations where one request gets several answers (a job's "started", "alive", then
 * its outcome; a JetStream fetch of a batch). close() when done.
 *
 * Across a reconnect the answers of a conversation already sent may be lost: a fiber waiting on
 * an inbox made with $interruptOnReconnect gets ConnectionLostException (the inbox stays usable).
 */
final class Inbox
{
    use OwnsResources;

    /** @param Closure(self): void $close */
    public function __construct(
        public readonly string $subject,
        public readonly int $token,
        public readonly bool $interruptOnReconnect,
        private readonly MessageBuffer $buffer,
        private readonly Closure $close,
    ) {
    }

    /**
     * @throws \Bobbin\Nats\Exception\ConnectionLostException|\Bobbin\Nats\Exception\SubscriptionClosedException
     * @throws \Bobbin\Async\TimeoutException|\Bobbin\Async\CancelledException
     */
    public function next(?float $timeout = null, ?Cancellation $cancellation = null): Message
    {
        return $this->buffer->pop($timeout, $cancellation);
    }

    public function tryNext(): ?Message
    {
        return $this->buffer->tryPop();
    }

    public function close(): void
    {
        ($this->close)($this);
    }

    /** @internal */
    public function deliver(Message $message): bool
    {
        return $this->buffer->push($message);
    }

    /** @internal */
    public function interrupt(\Throwable $reason): void
    {
        $this->buffer->interrupt($reason);
    }

    /** @internal */
    public function end(\Throwable $reason): void
    {
        $this->buffer->end($reason);
    }
}
