<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Process;

use Bobbin\Process\BlockWatch;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

#[RequiresPhpExtension('ffi')]
final class BlockWatchTest extends TestCase
{
    private const MS = 1_000_000;

    public function testAThresholdOfZeroMeansNoWatch(): void
    {
        self::assertNull(BlockWatch::create(0.0));
    }

    public function testTheMasterLooksFourTimesPerThresholdWithinBounds(): void
    {
        self::assertEqualsWithDelta(0.025, self::watch(0.1)->tickSeconds(), 1e-9);
        self::assertEqualsWithDelta(0.01, self::watch(0.001)->tickSeconds(), 1e-9);
        self::assertEqualsWithDelta(0.1, self::watch(5.0)->tickSeconds(), 1e-9);
    }

    public function testAWorkerBusyPastTheThresholdIsNamedAgainOnlyOnceItsStretchHasDoubled(): void
    {
        $watch = self::watch(0.1);
        $slot = $watch->freeSlot();
        self::assertNotNull($slot);
        $watch->assign(4242, $slot);
        $since = 10_000 * self::MS;
        $watch->heartbeat($slot)->busy($since);

        self::assertSame([], $watch->overThreshold($since + 99 * self::MS));
        self::assertSame([4242], $watch->overThreshold($since + 150 * self::MS));
        self::assertSame([], $watch->overThreshold($since + 200 * self::MS));
        self::assertSame([], $watch->overThreshold($since + 299 * self::MS));
        self::assertSame([4242], $watch->overThreshold($since + 300 * self::MS));
    }

    public function testAWorkerWhoseLoopWaitsIsNeverNamed(): void
    {
        $watch = self::watch(0.1);
        $slot = (int) $watch->freeSlot();
        $watch->assign(1, $slot);
        $heartbeat = $watch->heartbeat($slot);
        $heartbeat->busy(1_000 * self::MS);
        $heartbeat->idle();

        self::assertSame([], $watch->overThreshold(5_000 * self::MS));
    }

    public function testANewStretchIsNamedEvenRightAfterAnother(): void
    {
        $watch = self::watch(0.1);
        $slot = (int) $watch->freeSlot();
        $watch->assign(7, $slot);
        $heartbeat = $watch->heartbeat($slot);
        $heartbeat->busy(1_000 * self::MS);
        self::assertSame([7], $watch->overThreshold(1_150 * self::MS));
        $heartbeat->busy(1_200 * self::MS);

        self::assertSame([7], $watch->overThreshold(1_350 * self::MS));
    }

    public function testSlotsOfExitedWorkersAreFreedAndClearedForTheNext(): void
    {
        $watch = self::watch(0.1);
        $first = (int) $watch->freeSlot();
        $watch->assign(1, $first);
        $second = (int) $watch->freeSlot();
        self::assertNotSame($first, $second);
        $watch->heartbeat($first)->busy(1);

        $watch->release(1);
        $reused = $watch->freeSlot();
        self::assertSame($first, $reused);
        $watch->assign(2, $first);
        self::assertSame([], $watch->overThreshold(100_000 * self::MS), 'the exited worker\'s busy mark was cleared');
    }

    private static function watch(float $threshold): BlockWatch
    {
        $watch = BlockWatch::create($threshold);
        self::assertNotNull($watch);

        return $watch;
    }
}
