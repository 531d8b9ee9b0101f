<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\BlockedCode;
use Bobbin\Async\BlockProbe;
use Bobbin\Async\Loop\BobbinDriver;
use PHPUnit\Framework\Attributes\RequiresFunction;
use Revolt\EventLoop;

#[RequiresFunction('pcntl_async_signals')]
#[RequiresFunction('posix_kill')]
final class BlockProbeTest extends AsyncTestCase
{
    private bool $asyncSignals = false;
    /** @var list<BlockedCode> */
    private array $found = [];

    protected function setUp(): void
    {
        parent::setUp();
        $this->asyncSignals = \pcntl_async_signals();
        $this->found = [];
    }

    protected function tearDown(): void
    {
        BlockProbe::uninstall(\SIGUSR2);
        \pcntl_async_signals($this->asyncSignals);
        parent::tearDown();
    }

    public function testOnlyBobbinsLoopDriverCanSayWhatHoldsIt(): void
    {
        $installed = $this->install();

        self::assertSame(EventLoop::getDriver() instanceof BobbinDriver, $installed);
    }

    public function testCodeThatNeverYieldsIsFoundAtItsLineInItsFiber(): void
    {
        if (!$this->install()) {
            self::markTestSkipped('needs Bobbin\'s loop driver');
        }
        $line = 0;
        $task = Async::run(function () use (&$line): object {
            $signalAt = \hrtime(true) + 50_000_000;
            $until = $signalAt + 50_000_000;
            $signalled = false;
            while (\hrtime(true) < $until) {
                if (!$signalled && \hrtime(true) >= $signalAt) {
                    $signalled = \posix_kill(\getmypid(), \SIGUSR2); $line = __LINE__;
                }
            }

            return \Fiber::getCurrent() ?? new \stdClass();
        });
        $fiber = $task->await();

        self::assertCount(1, $this->found);
        $found = $this->found[0];
        self::assertSame(__FILE__, $found->file);
        // The probe runs at the first statement boundary after the signal: on this line or the loop's.
        self::assertContains($found->line, [$line, $line - 3, $line - 2]);
        self::assertSame($fiber, $found->task);
        self::assertGreaterThanOrEqual(0.04, $found->heldSeconds);
        self::assertLessThan(1.0, $found->heldSeconds);
        self::assertStringEndsWith('{closure}', $found->trace[0]['function'] ?? '', 'the stack starts at the task\'s closure');
        foreach ($found->trace as $frame) {
            self::assertStringNotContainsString('Async\\Loop', $frame['class'] ?? '', 'the loop\'s own frames are left out');
        }
    }

    public function testTheHeldTimeIsTheRunningFibersOwnNotThatOfTheFibersBeforeItInTheSameTurn(): void
    {
        if (!$this->install()) {
            self::markTestSkipped('needs Bobbin\'s loop driver');
        }
        $spin = static function (int $nanoseconds): void {
            $until = \hrtime(true) + $nanoseconds;
            while (\hrtime(true) < $until) {
                // holds the loop
            }
        };
        $first = Async::run(static fn () => $spin(150_000_000));
        $second = Async::run(static function () use ($spin): void {
            $spin(30_000_000);
            \posix_kill(\getmypid(), \SIGUSR2);
            $spin(1_000_000);
        });
        $first->await();
        $second->await();

        self::assertCount(1, $this->found);
        self::assertLessThan(0.1, $this->found[0]->heldSeconds, 'the 150 ms of the fiber that ran before it are not blamed on it');
        self::assertGreaterThanOrEqual(0.025, $this->found[0]->heldSeconds);
    }

    public function testUninstallingStopsTimingEachHandOver(): void
    {
        if (!$this->install()) {
            self::markTestSkipped('needs Bobbin\'s loop driver');
        }
        $driver = EventLoop::getDriver();
        \assert($driver instanceof BobbinDriver);
        BlockProbe::uninstall(\SIGUSR2);
        $marks = [];
        $a = Async::run(static function () use ($driver, &$marks): void {
            $marks[] = $driver->heldSince();
            \usleep(5_000);
        });
        $b = Async::run(static function () use ($driver, &$marks): void {
            $marks[] = $driver->heldSince();
        });
        $a->await();
        $b->await();

        self::assertCount(2, $marks);
        self::assertSame($marks[0], $marks[1], 'both fibers ran in one turn, marked only by its poll');
    }

    public function testASignalThatArrivesWhileTheLoopWaitsFindsNothing(): void
    {
        if (!$this->install()) {
            self::markTestSkipped('needs Bobbin\'s loop driver');
        }
        $parent = \getmypid();
        $child = \pcntl_fork();
        if ($child === 0) {
            \usleep(100_000);
            \posix_kill((int) $parent, \SIGUSR2);
            \posix_kill((int) \getmypid(), \SIGKILL); // no PHPUnit shutdown in the child
        }
        Async::delay(0.3);
        \pcntl_waitpid($child, $status);

        self::assertSame([], $this->found);
    }

    private function install(): bool
    {
        return BlockProbe::install(\SIGUSR2, function (BlockedCode $code): void {
            $this->found[] = $code;
        });
    }
}
