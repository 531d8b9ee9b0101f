<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\LoopLagGauge;
use Bobbin\Async\Timer;
use Revolt\EventLoop;

final class LoopLagGaugeTest extends AsyncTestCase
{
    public function testABlockingCallInACallbackShowsUpAsLag(): void
    {
        $warnings = [];
        $gauge = new LoopLagGauge(0.005, 0.05, static function (float $lag) use (&$warnings): void {
            $warnings[] = $lag;
        });
        $gauge->start();
        Timer::after(0.02, static function (): void {
            \usleep(200_000); // the mistake the gauge exists to catch
        });

        Async::delay(0.3);
        $gauge->stop();

        self::assertGreaterThan(0, $gauge->samples());
        self::assertGreaterThanOrEqual(0.1, $gauge->maxLag());
        self::assertNotSame([], $warnings);
        self::assertGreaterThanOrEqual(0.1, \max($warnings));
        self::assertGreaterThan(0.0, $gauge->averageLag());
        self::assertLessThanOrEqual($gauge->maxLag(), $gauge->averageLag());
    }

    public function testStopRemovesItsTimerAndTheGaugeNeverKeepsTheLoopAlive(): void
    {
        $before = self::loopCallbacks();
        $gauge = new LoopLagGauge(0.001);
        $gauge->start();
        $gauge->start();
        self::assertCount(\count($before) + 1, self::loopCallbacks());

        EventLoop::run(); // returns: the gauge's timer is unreferenced

        $gauge->stop();
        self::assertSame($before, self::loopCallbacks());
    }

    public function testANewGaugeHasNoSamples(): void
    {
        $gauge = new LoopLagGauge();

        self::assertSame(0, $gauge->samples());
        self::assertSame(0.0, $gauge->averageLag());
        self::assertSame(0.0, $gauge->maxLag());
        self::assertSame(0.0, $gauge->lastLag());
    }

    public function testANonPositiveIntervalIsRejected(): void
    {
        $this->expectException(\ValueError::class);
        new LoopLagGauge(0.0);
    }
}
