<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

use Bobbin\Async\Cancellation;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Message;

/**
 * A message a pull consumer delivered, to be settled once: ack() (done), nak() (deliver it
 * again, after $delay seconds), term() (never again), or inProgress() any number of times
 * before that (restarts its ack wait: "still working on it").
 */
final class JetStreamMessage
{
    private bool $settled = false;

    public function __construct(
        public readonly Message $message,
        public readonly AckMetadata $metadata,
        private readonly Connection $connection,
    ) {
    }

    public function payload(): string
    {
        return $this->message->payload;
    }

    public function header(string $name): ?string
    {
        return $this->message->header($name);
    }

    /** Whether an earlier delivery of it was not acked (its worker died, or nak'ed it). */
    public function isRedelivery(): bool
    {
        return $this->metadata->delivered > 1;
    }

    public function ack(): void
    {
        $this->settle('+ACK');
    }

    /**
     * Acks and waits for the server to confirm it recorded the ack: after this returns, the
     * message will not be delivered again.
     */
    public function ackSync(?float $timeout = null, ?Cancellation $cancellation = null): void
    {
        $this->assertUnsettled();
        $this->connection->request($this->replyTo(), '+ACK', $timeout, null, $cancellation);
        $this->settled = true;
    }

    /** Delivers it again, at once or after $delay seconds. */
    public function nak(float $delay = 0.0): void
    {
        $this->settle($delay > 0.0 ? '-NAK ' . \json_encode(['delay' => (int) ($delay * 1e9)]) : '-NAK');
    }

    /** Never delivers it again (a message that cannot be handled). */
    public function term(): void
    {
        $this->settle('+TERM');
    }

    /** Still working on it: restarts its ack wait. */
    public function inProgress(): void
    {
        $this->assertUnsettled();
        $this->connection->publish($this->replyTo(), '+WPI');
    }

    public function isSettled(): bool
    {
        return $this->settled;
    }

    private function settle(string $body): void
    {
        $this->assertUnsettled();
        $this->connection->publish($this->replyTo(), $body);
        $this->settled = true;
    }

    private function replyTo(): string
    {
        return (string) $this->message->replyTo;
    }

    private function assertUnsettled(): void
    {
        if ($this->settled) {
            throw new \LogicException('This message was already acked, nak\'ed or terminated');
        }
    }
}
