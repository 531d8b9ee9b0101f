<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\RecycleLimits;
use PHPUnit\Framework\TestCase;

final class RecycleLimitsTest extends TestCase
{
    public function testEachWorkerDrawsItsRequestLimitWithinTenPercentOfMaxRequests(): void
    {
        $limits = new RecycleLimits(maxRequests: 1000);

        self::assertSame(900, $limits->requestLimitForOneWorker(static fn (int $min, int $max): int => $min));
        self::assertSame(1100, $limits->requestLimitForOneWorker(static fn (int $min, int $max): int => $max));
        $drawn = [];
        for ($i = 0; $i < 200; $i++) {
            $limit = $limits->requestLimitForOneWorker();
            self::assertGreaterThanOrEqual(900, $limit);
            self::assertLessThanOrEqual(1100, $limit);
            $drawn[$limit] = true;
        }
        self::assertGreaterThan(10, \count($drawn), 'The limits drawn were not spread out');
    }

    public function testSmallLimitsStayAtLeastOne(): void
    {
        self::assertSame(5, (new RecycleLimits(maxRequests: 5))->requestLimitForOneWorker());
        self::assertSame(1, (new RecycleLimits(maxRequests: 1))->requestLimitForOneWorker());
    }

    public function testZeroMeansNoLimit(): void
    {
        $limits = new RecycleLimits();

        self::assertSame(0, $limits->requestLimitForOneWorker());
        self::assertFalse($limits->memoryExceeded(\PHP_INT_MAX));
    }

    public function testMemoryIsExceededOnlyAboveTheLimit(): void
    {
        $limits = new RecycleLimits(maxMemory: 1000);

        self::assertFalse($limits->memoryExceeded(1000));
        self::assertTrue($limits->memoryExceeded(1001));
    }

    public function testNegativeLimitsAreRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new RecycleLimits(maxRequests: -1);
    }
}
