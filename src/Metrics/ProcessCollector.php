<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

use Bobbin\Async\Async;
use Bobbin\Async\LoopLagGauge;

/**
 * One serving process's own figures: PHP heap, resident memory, tasks alive (fibers), and how
 * late its loop's timers fire (a histogram and the worst since start), each kept per process
 * when the master merges them.
 */
final class ProcessCollector implements Collector
{
    /** Lag buckets: 1 ms to 5 s. */
    private const LAG_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

    private readonly Histogram $lag;
    private readonly LoopLagGauge $gauge;

    public function __construct(float $sampleEvery = 0.1)
    {
        $this->lag = new Histogram(self::LAG_SECONDS);
        $lag = $this->lag;
        $this->gauge = new LoopLagGauge($sampleEvery, \INF, null, static fn (float $seconds) => $lag->observe($seconds));
    }

    /** Starts sampling the loop's lag (a repeating timer that does not keep the loop alive). */
    public function start(): void
    {
        $this->gauge->start();
    }

    public function stop(): void
    {
        $this->gauge->stop();
    }

    public function collect(): iterable
    {
        yield new MetricFamily('bobbin_php_heap_bytes', MetricType::Gauge, 'PHP heap of the process (memory_get_usage(true))', [[[], (float) \memory_get_usage(true)]], true);
        yield new MetricFamily('bobbin_process_resident_memory_bytes', MetricType::Gauge, 'Resident memory of the process', [[[], (float) self::residentBytes()]], true);
        yield new MetricFamily('bobbin_tasks_alive', MetricType::Gauge, 'Tasks (fibers) started with Async::run() and not finished', [[[], (float) Async::tasksAlive()]], true);
        yield new MetricFamily('bobbin_event_loop_lag_seconds', MetricType::Histogram, 'How late the loop ran a timer: time it was busy with code that did not yield', [[[], $this->lag->value()]], true);
        yield new MetricFamily('bobbin_event_loop_lag_max_seconds', MetricType::Gauge, 'The worst lag since the process started', [[[], $this->gauge->maxLag()]], true);
    }

    private static function residentBytes(): int
    {
        $statm = @\file_get_contents('/proc/self/statm');
        if (!\is_string($statm)) {
            return 0;
        }
        $fields = \explode(' ', $statm);

        return (int) ($fields[1] ?? 0) * 4096;
    }
}
