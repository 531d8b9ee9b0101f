<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

/** The stream's receipt for a published message: it is stored (and where). */
final readonly class PubAck
{
    public function __construct(
        public string $stream,
        public int $sequence,
        /** The message id was seen within the duplicate window: this publish stored nothing new. */
        public bool $duplicate,
    ) {
    }
}
