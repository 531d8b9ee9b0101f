<?php

declare(strict_types=1);

namespace Bobbin\Pool;

use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;

/**
 * The figures of every connection pool of the process, for /metrics: each Pool makes itself
 * known when it is built (held weakly: a pool nobody uses any more disappears from the figures),
 * labelled with its name (the client and its target, password masked). Summed over the workers
 * by the master, so the figures say what the whole server holds against each database.
 */
final class PoolMetrics implements Collector
{
    private static ?self $shared = null;

    /** @var \WeakMap<Pool<object>, string> */
    private \WeakMap $pools;
    /** @var array<string, int> how many pools took each name, for a distinct label per pool */
    private array $named = [];

    public function __construct()
    {
        $this->pools = new \WeakMap();
    }

    /** The process's instance, which every Pool joins; the worker adds it to its metrics registry. */
    public static function shared(): self
    {
        return self::$shared ??= new self();
    }

    /** @param Pool<object> $pool */
    public function track(Pool $pool, string $name): void
    {
        $name = $name === '' ? 'pool' : $name;
        $seen = $this->named[$name] = ($this->named[$name] ?? 0) + 1;
        $this->pools[$pool] = $seen === 1 ? $name : $name . ' #' . $seen;
    }

    /**
     * The open pools, by their label.
     *
     * @return iterable<string, Pool<object>>
     */
    public function pools(): iterable
    {
        foreach ($this->pools as $pool => $name) {
            if (!$pool->isClosed()) {
                yield $name => $pool;
            }
        }
    }

    public function collect(): iterable
    {
        $connections = $max = $waiting = $waits = $acquisitions = $timeouts = $discarded = [];
        foreach ($this->pools as $pool => $name) {
            if ($pool->isClosed()) {
                continue;
            }
            $labels = ['pool' => $name];
            $s = $pool->statistics();
            $connections[] = [$labels + ['state' => 'idle'], (float) $s->idle];
            $connections[] = [$labels + ['state' => 'in_use'], (float) $s->inUse];
            $max[] = [$labels, (float) $s->maxSize];
            $waiting[] = [$labels, (float) $s->waiting];
            $waits[] = [$labels, $pool->waitTimes()];
            $acquisitions[] = [$labels, (float) $s->acquisitions];
            $timeouts[] = [$labels, (float) $s->timeouts];
            $discarded[] = [$labels, (float) $s->discarded];
        }
        if ($max === []) {
            return;
        }
        yield new MetricFamily('bobbin_db_pool_connections', MetricType::Gauge, 'Connections of a pool, idle or in use (being opened counts as in use)', $connections);
        yield new MetricFamily('bobbin_db_pool_max_connections', MetricType::Gauge, 'The most connections a pool opens (per process: summed, the whole server\'s)', $max);
        yield new MetricFamily('bobbin_db_pool_waiting', MetricType::Gauge, 'Callers waiting for a connection now', $waiting);
        yield new MetricFamily('bobbin_db_pool_wait_seconds', MetricType::Histogram, 'Time callers waited for a connection (0 when one was idle or could be opened)', $waits);
        yield new MetricFamily('bobbin_db_pool_acquisitions_total', MetricType::Counter, 'Connections handed out', $acquisitions);
        yield new MetricFamily('bobbin_db_pool_timeouts_total', MetricType::Counter, 'Waits for a connection that gave up (timeout, cancellation, too many waiting)', $timeouts);
        yield new MetricFamily('bobbin_db_pool_discarded_total', MetricType::Counter, 'Connections closed because they broke, expired or idled too long', $discarded);
    }
}
