<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

/**
 * One round of asking the workers for their metric families: who has answered, done when every
 * worker asked has answered or the deadline passed (a worker busy in blocking code does not hold
 * the scrape up: its last figures stand in, Metrics\WorkerFamilies). The answers themselves go
 * to WorkerFamilies as they arrive.
 */
final class MetricsCollection
{
    /** @var array<int, true> pids that answered */
    private array $answered = [];
    /** @var list<AdminRequest> requests waiting for this round */
    public array $waiting = [];

    /** @param list<int> $asked pids */
    public function __construct(public readonly int $id, private readonly array $asked, private readonly float $deadline)
    {
    }

    public function answered(int $pid): void
    {
        if (\in_array($pid, $this->asked, true)) {
            $this->answered[$pid] = true;
        }
    }

    public function isDone(float $now): bool
    {
        return $now >= $this->deadline || \count($this->answered) >= \count($this->asked);
    }
}
