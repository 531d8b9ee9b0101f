<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

use Bobbin\Metrics\MetricFamily;

/**
 * One round of asking the workers for their metric families: the answers as they arrive, done
 * when every worker asked has answered or the deadline passed (a worker busy in blocking code
 * is left out of that scrape rather than holding it up).
 */
final class MetricsCollection
{
    /** @var array<int, list<MetricFamily>> pid => its families */
    private array $answers = [];
    /** @var list<AdminRequest> requests waiting for this round */
    public array $waiting = [];

    /** @param list<int> $asked pids */
    public function __construct(public readonly int $id, private readonly array $asked, private readonly float $deadline)
    {
    }

    /** @param list<MetricFamily> $families */
    public function answer(int $pid, array $families): void
    {
        if (\in_array($pid, $this->asked, true)) {
            $this->answers[$pid] = $families;
        }
    }

    public function isDone(float $now): bool
    {
        return $now >= $this->deadline || \count($this->answers) >= \count($this->asked);
    }

    /** @return array<int, list<MetricFamily>> */
    public function answers(): array
    {
        return $this->answers;
    }
}
