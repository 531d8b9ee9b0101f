<?php

declare(strict_types=1);

namespace Bobbin\Nats;

/** A message as delivered (MSG or HMSG): the subject it was published to, its reply subject, payload and headers. */
final readonly class Message
{
    public function __construct(
        public string $subject,
        /** The subscription it was delivered to (its sid on this connection). */
        public int $sid,
        public ?string $replyTo,
        public string $payload,
        public ?Headers $headers = null,
    ) {
    }

    /** The server's status (503, 404, 408, 409, 100) when this is a status message, not a published one. */
    public function status(): ?int
    {
        return $this->headers?->status;
    }

    public function header(string $name): ?string
    {
        return $this->headers?->get($name);
    }
}
