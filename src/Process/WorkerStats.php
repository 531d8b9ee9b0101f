<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** What a worker last reported about itself. */
final readonly class WorkerStats
{
    public function __construct(
        public int $pid,
        public float $started,
        public int $requests = 0,
        public int $inFlight = 0,
        public int $memory = 0,
        public int $connections = 0,
    ) {
    }

    /** @return array{pid: int, started: float, requests: int, inFlight: int, memory: int, connections: int} */
    public function toArray(): array
    {
        return [
            'pid' => $this->pid,
            'started' => $this->started,
            'requests' => $this->requests,
            'inFlight' => $this->inFlight,
            'memory' => $this->memory,
            'connections' => $this->connections,
        ];
    }

    public static function fromMessage(WorkerMessage $message, int $pid, float $started): self
    {
        $reportedStart = $message->fields['started'] ?? null;

        return new self(
            $pid,
            \is_float($reportedStart) || \is_int($reportedStart) ? (float) $reportedStart : $started,
            $message->int('requests'),
            $message->int('inFlight'),
            $message->int('memory'),
            $message->int('connections'),
        );
    }
}
