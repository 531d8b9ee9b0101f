<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

/** A stream's settings, as JetStream's API takes them (durations in seconds here, nanoseconds on the wire). */
final readonly class StreamConfig
{
    /** @param list<string> $subjects */
    public function __construct(
        public string $name,
        public array $subjects,
        public RetentionPolicy $retention = RetentionPolicy::Limits,
        public StorageType $storage = StorageType::File,
        public int $maxMessages = -1,
        public int $maxBytes = -1,
        /** Seconds a message is kept; 0: no limit. */
        public float $maxAge = 0.0,
        /** Seconds within which a second publish with the same Nats-Msg-Id is dropped as a duplicate. */
        public float $duplicateWindow = 120.0,
        public int $maxMessageSize = -1,
        public int $replicas = 1,
    ) {
        if ($name === '' || \preg_match('/[\s.*>\/\\\\]/', $name) === 1) {
            throw new \InvalidArgumentException(\sprintf('A stream name cannot be empty or hold whitespace, ".", "*", ">" or slashes: %s', \json_encode($name)));
        }
        if ($subjects === []) {
            throw new \InvalidArgumentException('A stream needs at least one subject');
        }
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return [
            'name' => $this->name,
            'subjects' => $this->subjects,
            'retention' => $this->retention->value,
            'storage' => $this->storage->value,
            'max_msgs' => $this->maxMessages,
            'max_bytes' => $this->maxBytes,
            'max_age' => (int) ($this->maxAge * 1e9),
            'duplicate_window' => (int) ($this->duplicateWindow * 1e9),
            'max_msg_size' => $this->maxMessageSize,
            'num_replicas' => $this->replicas,
            'discard' => 'old',
        ];
    }
}
