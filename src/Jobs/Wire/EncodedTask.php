<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

/** A task as it travels: its class (for messages before it is unserialized), its serialized form and its time limit. */
final readonly class EncodedTask
{
    public function __construct(
        public string $class,
        public string $payload,
        /** Seconds it may run; 0 for no limit. */
        public float $timeLimit,
        /** A DurableTask's idempotencyKey(); null for any other task. */
        public ?string $idempotencyKey = null,
    ) {
    }
}
