<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Timer;
use Revolt\EventLoop;

/** Async::delay and Timer. */
final class TimerTest extends AsyncTestCase
{
    public function testDelaySuspendsOnlyTheCallingTask(): void
    {
        $ticks = 0;
        $ticker = Async::run(static function () use (&$ticks): void {
            for ($i = 0; $i < 5; $i++) {
                $ticks++;
                Async::delay(0);
            }
        });

        $started = \hrtime(true);
        Async::run(static fn () => Async::delay(0.02))->await();
        $elapsed = (\hrtime(true) - $started) / 1e9;

        self::assertGreaterThan(0, $ticks, 'the other task ran while this one slept');
        self::assertGreaterThanOrEqual(0.019, $elapsed);
        $ticker->await();
    }

    public function testACancelledDelayThrowsAndRemovesItsTimer(): void
    {
        $before = self::loopCallbacks();
        $source = new CancellationSource();
        $sleeper = Async::run(static fn () => Async::delay(30, $source));
        Async::delay(0.005);

        $source->cancel();
        try {
            $sleeper->await();
            self::fail('The delay should have been cancelled');
        } catch (CancelledException) {
        }

        self::assertSame($before, self::loopCallbacks());
    }

    public function testAfterRunsTheCallbackOnceAfterTheDelay(): void
    {
        $calls = 0;
        Timer::after(0.005, static function () use (&$calls): int {
            // A callback may return a value; the timer ignores it.
            return ++$calls;
        });

        EventLoop::run();

        self::assertSame(1, $calls);
        self::assertSame([], self::loopCallbacks());
    }

    public function testACancelledTimerNeverFires(): void
    {
        $fired = false;
        $timer = Timer::after(0.005, static function () use (&$fired): void {
            $fired = true;
        });

        $timer->cancel();
        Async::delay(0.02);

        self::assertFalse($fired);
        self::assertTrue($timer->isCancelled());
    }

    public function testEveryRepeatsUntilCancelled(): void
    {
        $calls = 0;
        $timer = null;
        $timer = Timer::every(0.002, static function () use (&$calls, &$timer): void {
            if (++$calls === 3) {
                $timer->cancel();
            }
        });

        EventLoop::run();

        self::assertSame(3, $calls);
        self::assertSame([], self::loopCallbacks());
    }

    public function testEveryRejectsANonPositiveInterval(): void
    {
        $this->expectException(\ValueError::class);
        Timer::every(0, static function (): void {
        });
    }

    public function testAnUnreferencedTimerDoesNotKeepTheLoopAlive(): void
    {
        $fired = false;
        $timer = Timer::after(30, static function () use (&$fired): void {
            $fired = true;
        })->unreference();

        $started = \hrtime(true);
        EventLoop::run();

        self::assertFalse($fired);
        self::assertLessThan(5.0, (\hrtime(true) - $started) / 1e9);
        $timer->cancel();
    }

    public function testAnExceptionInATimerCallbackIsReportedAndLaterTimersStillFire(): void
    {
        $later = false;
        Timer::after(0.001, static function (): never {
            throw new \DomainException('timer failed');
        });
        Timer::after(0.01, static function () use (&$later): void {
            $later = true;
        });

        EventLoop::run();

        self::assertTrue($later);
        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame('timer failed', $reported[0][0]->getMessage());
    }
}
