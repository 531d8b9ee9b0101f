<?php

declare(strict_types=1);

namespace Bobbin\Nats;

/**
 * A message as delivered (MSG or HMSG): the subject it was published to, its reply subject,
 * payload and headers.
 *
 * Immutable: the properties are documented @readonly (PHPStan reports a write to them) rather
 * than declared readonly, because PHP 8.2's JIT writes a readonly property through a slow helper
 * and a subscription builds one Message per message delivered (bench/nats/instructions.php,
 * docs/NATS.md). Reading them is the same as before.
 */
final class Message
{
    public function __construct(
        /** @readonly */
        public string $subject,
        /**
         * The subscription it was delivered to (its sid on this connection).
         *
         * @readonly
         */
        public int $sid,
        /** @readonly */
        public ?string $replyTo,
        /** @readonly */
        public string $payload,
        /** @readonly */
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
