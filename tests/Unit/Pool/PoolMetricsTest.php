<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

use Bobbin\Async\Async;
use Bobbin\Metrics\HistogramValue;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolMetrics;
use Bobbin\Pool\PoolSettings;
use PHPUnit\Framework\TestCase;

/** Every pool of the process in /metrics: connections by state, waiters, waits, counters. */
final class PoolMetricsTest extends TestCase
{
    public function testAPoolShowsItsConnectionsByStateUnderItsName(): void
    {
        $metrics = new PoolMetrics();
        $pool = $this->pool($metrics, 'postgres host=db', maxSize: 3);
        $a = $pool->acquire();
        $pool->acquire();
        $pool->release($a);

        $families = self::byName($metrics);
        self::assertSame([
            [['pool' => 'postgres host=db', 'state' => 'idle'], 1.0],
            [['pool' => 'postgres host=db', 'state' => 'in_use'], 1.0],
        ], $families['bobbin_db_pool_connections']->samples);
        self::assertSame([[['pool' => 'postgres host=db'], 3.0]], $families['bobbin_db_pool_max_connections']->samples);
        self::assertSame([[['pool' => 'postgres host=db'], 2.0]], $families['bobbin_db_pool_acquisitions_total']->samples);
    }

    public function testWaitsAreTimedAndAcquisitionsThatFoundAConnectionCountAsZero(): void
    {
        $metrics = new PoolMetrics();
        $pool = $this->pool($metrics, 'p', maxSize: 1);
        $held = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.03);
        self::assertSame([[['pool' => 'p'], 1.0]], self::byName($metrics)['bobbin_db_pool_waiting']->samples);
        $pool->release($held);
        $pool->release($waiter->await());

        $waits = self::byName($metrics)['bobbin_db_pool_wait_seconds']->samples[0][1];
        self::assertInstanceOf(HistogramValue::class, $waits);
        self::assertSame(2, $waits->count);
        self::assertSame(1, $waits->cumulative[0], 'the first acquisition waited 0, in the lowest bucket');
        self::assertGreaterThanOrEqual(0.025, $waits->sum);
    }

    public function testTwoPoolsOfOneNameGetDistinctLabelsAndAForgottenPoolDisappears(): void
    {
        $metrics = new PoolMetrics();
        $first = $this->pool($metrics, 'mysql db');
        $second = $this->pool($metrics, 'mysql db');

        $labels = \array_map(static fn (array $sample): string => $sample[0]['pool'], self::byName($metrics)['bobbin_db_pool_max_connections']->samples);
        self::assertSame(['mysql db', 'mysql db #2'], $labels);

        unset($first, $second);
        \gc_collect_cycles();
        self::assertSame([], self::byName($metrics));
    }

    /** @return Pool<FakeConnection> */
    private function pool(PoolMetrics $metrics, string $name, int $maxSize = 2): Pool
    {
        $pool = new Pool(new FakeConnector(), new PoolSettings(maxSize: $maxSize, acquireTimeout: 1.0), $name);
        $metrics->track($pool, $name);

        return $pool;
    }

    /** @return array<string, MetricFamily> */
    private static function byName(PoolMetrics $metrics): array
    {
        $families = [];
        foreach ($metrics->collect() as $family) {
            $families[$family->name] = $family;
        }

        return $families;
    }
}
