<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\LoopHold;
use Bobbin\Async\Loop\BobbinDriver;
use Revolt\EventLoop;

/**
 * Async::reportLoopHolds(): code that held the loop past the threshold is reported after the
 * fact, with the fiber it ran in, and is never interrupted.
 */
final class LoopHoldReportTest extends AsyncTestCase
{
    /** @var list<LoopHold> */
    private array $holds = [];

    protected function setUp(): void
    {
        parent::setUp();
        $this->holds = [];
        if (!Async::reportLoopHolds(0.05, function (LoopHold $hold): void {
            $this->holds[] = $hold;
        })) {
            self::markTestSkipped('needs Bobbin\'s loop driver');
        }
    }

    protected function tearDown(): void
    {
        Async::reportLoopHolds(0.05, null);
        parent::tearDown();
    }

    public function testOnlyBobbinsLoopDriverCanReportHolds(): void
    {
        self::assertInstanceOf(BobbinDriver::class, EventLoop::getDriver());
    }

    public function testABlockingCallIsReportedWithItsFiberOnceItReturnsAndIsNotCutShort(): void
    {
        $task = Async::run(function (): array {
            Async::delay(0.01); // from here on the loop resumes this fiber
            $started = \hrtime(true);
            \usleep(120_000);
            $slept = (\hrtime(true) - $started) / 1e9;
            Async::delay(0.01);

            return [\Fiber::getCurrent(), $slept];
        });
        [$fiber, $slept] = $task->await();

        self::assertGreaterThanOrEqual(0.12, $slept);
        self::assertCount(1, $this->holds);
        self::assertGreaterThanOrEqual(0.12, $this->holds[0]->seconds);
        self::assertSame($fiber, $this->holds[0]->task);
        self::assertSame('', $this->holds[0]->callbackOrigin(), 'a fiber, not a callback');
    }

    public function testACallbackThatBlocksIsReportedWithWhereItWasWritten(): void
    {
        $line = __LINE__ + 1;
        EventLoop::delay(0.001, static fn () => \usleep(80_000));
        Async::delay(0.05);

        self::assertCount(1, $this->holds);
        self::assertSame(__FILE__ . ':' . $line, $this->holds[0]->callbackOrigin());
    }

    public function testManyShortPiecesOfWorkInOneTurnBlameNoOne(): void
    {
        $tasks = [];
        for ($i = 0; $i < 40; $i++) {
            $tasks[] = Async::run(static function (): void {
                \usleep(3_000); // 40 x 3 ms: a 120 ms turn, no piece of it near 50 ms
            });
        }
        foreach ($tasks as $task) {
            $task->await();
        }

        self::assertSame([], $this->holds);
    }

    public function testAHoldSwitchesOnTheTimingOfEachHandOverSoThatTheNextHoldIsNamedExactly(): void
    {
        // Only turns are timed at first (cheap): the first hold is the turn's, named by its last code.
        EventLoop::delay(0.001, static fn () => \usleep(80_000));
        Async::delay(0.05);
        self::assertCount(1, $this->holds);

        // Now each hand-over is timed: in a turn where a blocking callback is followed by a
        // quick one, the blocking one is named, not the turn's last.
        $blocking = __LINE__ + 1;
        EventLoop::defer(static fn () => \usleep(80_000));
        EventLoop::defer(static fn () => null);
        Async::delay(0.05);

        self::assertCount(2, $this->holds);
        self::assertSame(__FILE__ . ':' . $blocking, $this->holds[1]->callbackOrigin());
    }

    public function testNothingIsReportedOnceItIsStopped(): void
    {
        Async::reportLoopHolds(0.05, null);
        Async::run(static fn () => \usleep(80_000))->await();

        self::assertSame([], $this->holds);
    }
}
