<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\ErrorReporter;
use Bobbin\Async\Timer;
use Revolt\EventLoop;

final class ErrorReporterTest extends AsyncTestCase
{
    public function testTheHandlerReceivesTheErrorOfATaskNobodyAwaited(): void
    {
        $error = new \DomainException('lost in a fire-and-forget task');
        Async::run(static function () use ($error): never {
            Async::delay(0.001);
            throw $error;
        });

        Async::delay(0.02);

        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame($error, $reported[0][0]);
        self::assertSame('Unhandled error of a task nobody awaited', $reported[0][1]);
    }

    public function testEachUnawaitedFailureIsReportedOnceAndOtherTasksFinish(): void
    {
        $finished = 0;
        for ($i = 0; $i < 10; $i++) {
            Async::run(static function () use ($i, &$finished): void {
                Async::delay(0.001 * $i);
                if ($i % 2 === 0) {
                    throw new \DomainException("task $i failed");
                }
                $finished++;
            });
        }

        Async::delay(0.05);

        self::assertSame(5, $finished);
        $messages = \array_map(static fn (array $report): string => $report[0]->getMessage(), $this->takeReported());
        \sort($messages);
        self::assertSame(['task 0 failed', 'task 2 failed', 'task 4 failed', 'task 6 failed', 'task 8 failed'], $messages);
    }

    public function testAnErrorEscapingALoopCallbackIsReportedInsteadOfStoppingTheLoop(): void
    {
        $after = false;
        EventLoop::queue(static function (): never {
            throw new \DomainException('escaped a raw loop callback');
        });
        Timer::after(0.005, static function () use (&$after): void {
            $after = true;
        });

        EventLoop::run();

        self::assertTrue($after);
        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame('escaped a raw loop callback', $reported[0][0]->getMessage());
    }

    public function testReportCallsTheHandlerWithTheContext(): void
    {
        $error = new \RuntimeException('direct');

        ErrorReporter::report($error, 'Connection handler failed');

        self::assertSame([[$error, 'Connection handler failed']], $this->takeReported());
    }

    public function testTheLoopUsesTheReporterAgainAfterTheDriverIsReplaced(): void
    {
        // setUp() installed a fresh driver; installing again on it must not be skipped.
        self::assertNotNull(EventLoop::getErrorHandler());
    }
}
