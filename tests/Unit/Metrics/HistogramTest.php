<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Metrics;

use Bobbin\Metrics\Histogram;
use PHPUnit\Framework\TestCase;

final class HistogramTest extends TestCase
{
    public function testEachObservationCountsInTheFirstBucketWhoseBoundIsNotBelowIt(): void
    {
        $histogram = new Histogram([0.001, 0.01, 0.1]);
        foreach ([0.0, 0.0005, 0.001, 0.0011, 0.01, 0.05, 0.1, 0.2, 7.0] as $seconds) {
            $histogram->observe($seconds);
        }

        $value = $histogram->value();
        // Cumulative: ≤0.001 → 3, ≤0.01 → 5, ≤0.1 → 7, +Inf → 9.
        self::assertSame([3, 5, 7, 9], $value->cumulative);
        self::assertSame(9, $value->count);
        self::assertEqualsWithDelta(7.3626, $value->sum, 1e-9);
    }

    public function testAHistogramWithoutBoundsCountsEverythingInItsInfiniteBucket(): void
    {
        $histogram = new Histogram([]);
        $histogram->observe(-1.0);
        $histogram->observe(3.0);

        self::assertSame([2], $histogram->value()->cumulative);
    }
}
