<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;

/** The master's own figures: workers started and ended (and why), reloads, workers by state. */
final class MasterMetrics implements Collector
{
    public int $workerStarts = 0;
    /** @var array<string, int> reason ("crashed", "replaced") => workers */
    public array $workerExits = [];
    public int $reloads = 0;
    /** @var array<string, int> state => workers now (set before each collect) */
    public array $workersByState = [];

    public function __construct(private readonly float $startedAt)
    {
    }

    public function workerExited(string $reason): void
    {
        $this->workerExits[$reason] = ($this->workerExits[$reason] ?? 0) + 1;
    }

    public function collect(): iterable
    {
        yield new MetricFamily('bobbin_master_start_time_seconds', MetricType::Gauge, 'When the master started (Unix time)', [[[], $this->startedAt]]);
        yield new MetricFamily('bobbin_worker_starts_total', MetricType::Counter, 'Worker processes started (at start, as replacements, at reloads)', [[[], (float) $this->workerStarts]]);
        $exits = [];
        foreach ($this->workerExits as $reason => $count) {
            $exits[] = [['reason' => $reason], (float) $count];
        }
        yield new MetricFamily('bobbin_worker_exits_total', MetricType::Counter, 'Worker processes ended, by reason: crashed, boot_failed, recycled (--max-requests, --max-memory), reloaded, reload_aborted, ended (a legacy script\'s exit), stopped', $exits);
        yield new MetricFamily('bobbin_reloads_total', MetricType::Counter, 'Reloads (SIGHUP) started', [[[], (float) $this->reloads]]);
        $states = [];
        foreach ($this->workersByState as $state => $count) {
            $states[] = [['state' => $state], (float) $count];
        }
        yield new MetricFamily('bobbin_workers', MetricType::Gauge, 'Worker processes by state', $states);
    }
}
