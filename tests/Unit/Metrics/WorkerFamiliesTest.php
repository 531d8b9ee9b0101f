<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Metrics;

use Bobbin\Metrics\HistogramValue;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;
use Bobbin\Metrics\WorkerFamilies;
use PHPUnit\Framework\TestCase;

final class WorkerFamiliesTest extends TestCase
{
    /** @return list<MetricFamily> what one worker reports */
    private static function worker(float $requests, int $inFlight = 0, float $blocks = 0.0, ?HistogramValue $durations = null, string $status = '2xx'): array
    {
        return [
            new MetricFamily('bobbin_http_requests_total', MetricType::Counter, 'requests', [[['method' => 'GET', 'status' => $status], $requests]]),
            new MetricFamily('bobbin_http_requests_in_flight', MetricType::Gauge, 'in flight', [[[], (float) $inFlight]]),
            new MetricFamily('bobbin_loop_blocks_total', MetricType::Counter, 'blocks', [[[], $blocks]], true),
            new MetricFamily('bobbin_http_request_duration_seconds', MetricType::Histogram, 'durations', [[[], $durations ?? self::histogram(0, 0)]]),
        ];
    }

    private static function histogram(int $fast, int $slow): HistogramValue
    {
        return new HistogramValue([0.1, 1.0], [$fast, $fast + $slow, $fast + $slow], 0.05 * $fast + 0.5 * $slow, $fast + $slow);
    }

    /**
     * @param list<MetricFamily> $families
     * @return array<string, float|HistogramValue> "name{labels}" => value
     */
    private static function series(array $families): array
    {
        $series = [];
        foreach ($families as $family) {
            foreach ($family->samples as [$labels, $value]) {
                \ksort($labels);
                $series[$family->name . \json_encode($labels)] = $value;
            }
        }
        \ksort($series);

        return $series;
    }

    public function testTheLiveWorkersAreSummedAsTheyReported(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(150.0, 2));
        $figures->reported(102, self::worker(150.0, 1));

        $series = self::series($figures->merged());

        self::assertSame(300.0, $series['bobbin_http_requests_total{"method":"GET","status":"2xx"}']);
        self::assertSame(3.0, $series['bobbin_http_requests_in_flight[]']);
    }

    public function testALaterReportOfTheSameWorkerReplacesItsEarlierOneInsteadOfAddingToIt(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(100.0));
        $figures->reported(101, self::worker(150.0));

        self::assertSame(150.0, self::series($figures->merged())['bobbin_http_requests_total{"method":"GET","status":"2xx"}']);
    }

    public function testAnEndedWorkersCountersAndHistogramsStayInTheTotalsOnce(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(150.0, 0, 0.0, self::histogram(140, 10)));
        $figures->reported(102, self::worker(150.0, 0, 0.0, self::histogram(150, 0)));

        $figures->ended(101);
        $afterTheEnd = self::series($figures->merged());
        $figures->reported(103, self::worker(7.0, 0, 0.0, self::histogram(7, 0)));
        $figures->reported(102, self::worker(160.0, 0, 0.0, self::histogram(160, 0)));
        $withTheReplacement = self::series($figures->merged());

        self::assertSame(300.0, $afterTheEnd['bobbin_http_requests_total{"method":"GET","status":"2xx"}']);
        self::assertSame(317.0, $withTheReplacement['bobbin_http_requests_total{"method":"GET","status":"2xx"}']);
        self::assertEquals(self::histogram(307, 10), $withTheReplacement['bobbin_http_request_duration_seconds[]']);
    }

    public function testASeriesOnlyAnEndedWorkerHadStays(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(3.0, 0, 0.0, null, '5xx'));
        $figures->reported(102, self::worker(10.0));

        $figures->ended(101);

        self::assertSame(3.0, self::series($figures->merged())['bobbin_http_requests_total{"method":"GET","status":"5xx"}'] ?? null);
    }

    public function testAnEndedWorkersGaugesAreDroppedForTheyDescribeAProcessThatIsGone(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(10.0, 5));
        $figures->reported(102, self::worker(10.0, 1));

        $figures->ended(101);

        self::assertSame(1.0, self::series($figures->merged())['bobbin_http_requests_in_flight[]']);
    }

    public function testAPerProcessSeriesEndsWithItsWorkerAndIsNotFoldedIntoAnother(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(10.0, 0, 4.0));
        $figures->reported(102, self::worker(10.0, 0, 1.0));
        self::assertSame(4.0, self::series($figures->merged())['bobbin_loop_blocks_total{"worker":"101"}']);

        $figures->ended(101);
        $series = \array_filter(self::series($figures->merged()), static fn (string $name): bool => \str_starts_with($name, 'bobbin_loop_blocks_total'), \ARRAY_FILTER_USE_KEY);

        // Folding 4 into a worker-less series would make rate() count those blocks twice: once in
        // worker 101's series, again as that series' jump.
        self::assertSame(['bobbin_loop_blocks_total{"worker":"102"}' => 1.0], $series);
    }

    public function testAWorkerEndsWithTheLastFiguresItReportedAndCountsNoMoreAfterwards(): void
    {
        $figures = new WorkerFamilies();
        $figures->reported(101, self::worker(40.0));

        $figures->ended(101);
        $figures->ended(101); // reaped once, but a second call must not add it again
        $figures->ended(999); // a worker that never reported (killed while booting)

        self::assertSame(40.0, self::series($figures->merged())['bobbin_http_requests_total{"method":"GET","status":"2xx"}']);
    }
}
