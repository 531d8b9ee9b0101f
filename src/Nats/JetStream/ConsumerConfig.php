<?php

declare(strict_types=1);

namespace Bobbin\Nats\JetStream;

/**
 * A durable pull consumer with explicit acknowledgements: every message must be acked (or
 * nak'ed, or terminated); one not acked within $ackWait seconds is delivered again, up to
 * $maxDeliver times in all.
 */
final readonly class ConsumerConfig
{
    public function __construct(
        public string $durableName,
        public float $ackWait = 30.0,
        /** Deliveries in all before the message is given up (-1: no limit). */
        public int $maxDeliver = -1,
        public ?string $filterSubject = null,
        /** Messages delivered and not acked yet, across every puller, beyond which none is delivered. */
        public int $maxAckPending = 1000,
        /** Pull requests that may wait at once. */
        public int $maxWaiting = 512,
        public string $description = '',
    ) {
        if ($durableName === '' || \preg_match('/[\s.*>\/\\\\]/', $durableName) === 1) {
            throw new \InvalidArgumentException(\sprintf('A consumer name cannot be empty or hold whitespace, ".", "*", ">" or slashes: %s', \json_encode($durableName)));
        }
        if ($ackWait <= 0.0) {
            throw new \InvalidArgumentException('The ack wait must be positive');
        }
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        $config = [
            'durable_name' => $this->durableName,
            'deliver_policy' => 'all',
            'ack_policy' => 'explicit',
            'ack_wait' => (int) ($this->ackWait * 1e9),
            'max_deliver' => $this->maxDeliver,
            'max_ack_pending' => $this->maxAckPending,
            'max_waiting' => $this->maxWaiting,
            'replay_policy' => 'instant',
        ];
        if ($this->filterSubject !== null) {
            $config['filter_subject'] = $this->filterSubject;
        }
        if ($this->description !== '') {
            $config['description'] = $this->description;
        }

        return $config;
    }
}
