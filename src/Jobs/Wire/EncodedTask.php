<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

/**
 * A task as it travels: its class (for messages before it is unserialized), its serialized form,
 * its time limit, the id every answer about it is signed for, and for a durable task its key and
 * which delivery this is.
 */
final readonly class EncodedTask
{
    public const ID_BYTES = 16;

    /** Random, per submit(): the replies about this task are signed for it, so no other task's answer passes as its own. */
    public string $id;

    public function __construct(
        public string $class,
        public string $payload,
        /** Seconds it may run; 0 for no limit. */
        public float $timeLimit,
        /** A DurableTask's idempotencyKey(); null for any other task. */
        public ?string $idempotencyKey = null,
        ?string $id = null,
        /** Which delivery of a durable task this is (1 the first); 0 when it is not a delivery (Delivery::current() is null). */
        public int $attempt = 0,
    ) {
        $this->id = $id ?? \random_bytes(self::ID_BYTES);
    }

    /** The same task, as the given delivery of a durable task. */
    public function delivery(int $attempt): self
    {
        return new self($this->class, $this->payload, $this->timeLimit, $this->idempotencyKey, $this->id, $attempt);
    }
}
