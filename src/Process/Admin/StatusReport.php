<?php

declare(strict_types=1);

namespace Bobbin\Process\Admin;

use Bobbin\Metrics\HistogramValue;
use Bobbin\Metrics\MetricFamily;

/**
 * What /status.json, the /status page and `bin/bobbin status` show: the master, each worker
 * (state, age, memory, loop lag), the totals that make requests/s and latency percentiles, and
 * the database pools. Built from the merged metric families and the master's records; pure.
 */
final class StatusReport
{
    private function __construct()
    {
    }

    /**
     * @param array<string, mixed> $master
     * @param list<array<string, mixed>> $workers WorkerHandle::describe() of each
     * @param list<MetricFamily> $families merged over the workers
     * @return array<string, mixed>
     */
    public static function build(float $now, array $master, array $workers, array $families): array
    {
        $byName = [];
        foreach ($families as $family) {
            $byName[$family->name] = $family;
        }
        $perWorker = static function (string $name) use ($byName): array {
            $values = [];
            foreach (($byName[$name] ?? null)->samples ?? [] as [$labels, $value]) {
                if (isset($labels['worker']) && !$value instanceof HistogramValue) {
                    $values[(int) $labels['worker']] = $value;
                }
            }

            return $values;
        };
        $heap = $perWorker('bobbin_php_heap_bytes');
        $rss = $perWorker('bobbin_process_resident_memory_bytes');
        $lag = $perWorker('bobbin_event_loop_lag_max_seconds');
        foreach ($workers as $i => $worker) {
            $pid = (int) ($worker['pid'] ?? 0);
            $workers[$i]['heap'] = (int) ($heap[$pid] ?? $worker['memory'] ?? 0);
            $workers[$i]['rss'] = (int) ($rss[$pid] ?? 0);
            $workers[$i]['loopLagMax'] = (float) ($lag[$pid] ?? 0.0);
        }
        $durations = null;
        foreach (($byName['bobbin_http_request_duration_seconds'] ?? null)->samples ?? [] as [, $value]) {
            if ($value instanceof HistogramValue) {
                $durations = $durations === null ? $value : $durations->plus($value);
            }
        }
        $lagHistogram = null;
        foreach (($byName['bobbin_event_loop_lag_seconds'] ?? null)->samples ?? [] as [, $value]) {
            if ($value instanceof HistogramValue) {
                $lagHistogram = $lagHistogram === null ? $value : $lagHistogram->plus($value);
            }
        }

        return [
            'time' => $now,
            'master' => $master,
            'workers' => $workers,
            'totals' => [
                'requests' => (int) self::sum($byName['bobbin_http_requests_total'] ?? null),
                'errors' => (int) self::sum($byName['bobbin_http_requests_total'] ?? null, static fn (array $l): bool => ($l['status'] ?? '') === '5xx'),
                'inFlight' => (int) self::sum($byName['bobbin_http_requests_in_flight'] ?? null),
                'connections' => (int) self::sum($byName['bobbin_http_connections_open'] ?? null),
                'latency' => $durations === null ? null : [
                    'p50' => $durations->quantile(0.5), 'p90' => $durations->quantile(0.9), 'p99' => $durations->quantile(0.99),
                    'count' => $durations->count, 'sum' => $durations->sum,
                ],
                'loopLag' => $lagHistogram === null ? null : ['p99' => $lagHistogram->quantile(0.99), 'count' => $lagHistogram->count],
            ],
            'pools' => self::pools($byName),
        ];
    }

    /**
     * The report as lines for a terminal (`bin/bobbin status`).
     *
     * @param array<string, mixed> $report
     * @return list<string>
     */
    public static function describe(array $report): array
    {
        $master = (array) ($report['master'] ?? []);
        $totals = (array) ($report['totals'] ?? []);
        $latency = (array) ($totals['latency'] ?? []);
        $lines = [\sprintf(
            'master %d %s, generation %d, %s; %d requests (%d 5xx), %d in flight, %d connections, latency p50 %.1f ms p99 %.1f ms',
            (int) ($master['pid'] ?? 0),
            (string) ($master['phase'] ?? '?'),
            (int) ($master['generation'] ?? 0),
            (string) ($master['address'] ?? ''),
            (int) ($totals['requests'] ?? 0),
            (int) ($totals['errors'] ?? 0),
            (int) ($totals['inFlight'] ?? 0),
            (int) ($totals['connections'] ?? 0),
            1000 * (float) ($latency['p50'] ?? 0.0),
            1000 * (float) ($latency['p99'] ?? 0.0),
        )];
        $lines[] = \sprintf('%-8s %-9s %9s %10s %9s %9s %9s %12s', 'pid', 'state', 'uptime', 'requests', 'in flight', 'heap', 'rss', 'loop lag max');
        foreach ((array) ($report['workers'] ?? []) as $worker) {
            $worker = (array) $worker;
            $lines[] = \sprintf(
                '%-8d %-9s %8.0fs %10d %9d %8.1fM %8.1fM %10.1fms',
                (int) ($worker['pid'] ?? 0),
                (string) ($worker['state'] ?? ''),
                (float) ($worker['uptime'] ?? 0),
                (int) ($worker['requests'] ?? 0),
                (int) ($worker['inFlight'] ?? 0),
                (int) ($worker['heap'] ?? 0) / 1048576,
                (int) ($worker['rss'] ?? 0) / 1048576,
                1000 * (float) ($worker['loopLagMax'] ?? 0.0),
            );
        }
        foreach ((array) ($report['pools'] ?? []) as $name => $pool) {
            $pool = (array) $pool;
            $lines[] = \sprintf('pool %s: %d open, %d idle, %d in use, %d waiting', $name, (int) ($pool['open'] ?? 0), (int) ($pool['idle'] ?? 0), (int) ($pool['inUse'] ?? 0), (int) ($pool['waiting'] ?? 0));
        }

        return $lines;
    }

    /** @param (\Closure(array<string, string>): bool)|null $where */
    private static function sum(?MetricFamily $family, ?\Closure $where = null): float
    {
        $sum = 0.0;
        foreach ($family->samples ?? [] as [$labels, $value]) {
            if (!$value instanceof HistogramValue && ($where === null || $where($labels))) {
                $sum += $value;
            }
        }

        return $sum;
    }

    /**
     * @param array<string, MetricFamily> $byName
     * @return array<string, array<string, int>>
     */
    private static function pools(array $byName): array
    {
        $pools = [];
        foreach (['bobbin_db_pool_connections' => null, 'bobbin_db_pool_waiting' => 'waiting'] as $name => $field) {
            foreach (($byName[$name] ?? null)->samples ?? [] as [$labels, $value]) {
                if ($value instanceof HistogramValue) {
                    continue;
                }
                $pool = $labels['pool'] ?? 'default';
                $key = $field ?? match ($labels['state'] ?? '') {
                    'idle' => 'idle',
                    'in_use' => 'inUse',
                    default => 'open',
                };
                $pools[$pool][$key] = ($pools[$pool][$key] ?? 0) + (int) $value;
            }
        }
        foreach ($pools as $name => $pool) {
            $pool += ['idle' => 0, 'inUse' => 0, 'waiting' => 0];
            $pools[$name] = ['open' => $pool['idle'] + $pool['inUse']] + $pool;
        }

        return $pools;
    }
}
