<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;

final class TaskTest extends AsyncTestCase
{
    public function testRunPassesTheArgumentsAndAwaitReturnsTheResult(): void
    {
        $future = Async::run(static fn (int $a, int $b): int => $a + $b, 2, 3);

        self::assertSame(5, $future->await());
        self::assertTrue($future->isComplete());
        self::assertSame(5, $future->await(), 'a settled future answers again without waiting');
    }

    public function testATaskStartsOnTheNextLoopTickNotInsideRun(): void
    {
        $started = false;
        $future = Async::run(static function () use (&$started): void {
            $started = true;
        });

        self::assertFalse($started);
        $future->await();
        self::assertTrue($started);
    }

    public function testTasksInterleaveWhileTheyWait(): void
    {
        $log = [];
        $slow = Async::run(static function () use (&$log): void {
            $log[] = 'slow starts';
            Async::delay(0.05);
            $log[] = 'slow ends';
        });
        $fast = Async::run(static function () use (&$log): void {
            $log[] = 'fast starts';
            Async::delay(0.001);
            $log[] = 'fast ends';
        });

        Future::awaitAll([$slow, $fast]);

        self::assertSame(['slow starts', 'fast starts', 'fast ends', 'slow ends'], $log);
    }

    public function testAnExceptionInATaskReachesTheAwaiter(): void
    {
        $future = Async::run(static function (): never {
            Async::delay(0.001);
            throw new \DomainException('boom');
        });

        $this->expectException(\DomainException::class);
        $this->expectExceptionMessage('boom');
        $future->await();
    }

    public function testAnExceptionInOneTaskDoesNotAffectAnother(): void
    {
        $failing = Async::run(static function (): never {
            throw new \DomainException('first task fails');
        });
        $healthy = Async::run(static function (): string {
            Async::delay(0.01);

            return 'second task done';
        });

        self::assertSame('second task done', $healthy->await());
        try {
            $failing->await();
            self::fail('The failing task should have thrown');
        } catch (\DomainException $e) {
            self::assertSame('first task fails', $e->getMessage());
        }
    }

    public function testAnExceptionNobodyAwaitsIsReportedAndTheLoopGoesOn(): void
    {
        Async::run(static function (): never {
            throw new \DomainException('nobody listens');
        });
        $after = Async::run(static function (): string {
            Async::delay(0.01);

            return 'still running';
        });

        self::assertSame('still running', $after->await());
        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertInstanceOf(\DomainException::class, $reported[0][0]);
        self::assertSame('nobody listens', $reported[0][0]->getMessage());
        self::assertStringContainsString('nobody awaited', $reported[0][1]);
    }

    public function testAnIgnoredFailureIsNotReported(): void
    {
        Async::run(static function (): never {
            throw new \DomainException('expected');
        })->ignore();

        Async::delay(0.005);

        self::assertSame([], $this->takeReported());
    }

    public function testAnAwaitedFailureIsNotReportedAgain(): void
    {
        $future = Async::run(static function (): never {
            throw new \DomainException('seen by the awaiter');
        });
        try {
            $future->await();
        } catch (\DomainException) {
        }
        unset($future);

        self::assertSame([], $this->takeReported());
    }

    public function testTenThousandConcurrentTasksWaitingOnTimersAllComplete(): void
    {
        $done = 0;
        $futures = [];
        for ($i = 0; $i < 10_000; $i++) {
            $futures[] = Async::run(static function (int $i) use (&$done): int {
                Async::delay(($i % 50) / 1000);
                $done++;

                return $i;
            }, $i);
        }

        $results = Future::awaitAll($futures);

        self::assertSame(10_000, $done);
        self::assertSame(\range(0, 9_999), $results);
        self::assertSame([], self::loopCallbacks(), 'every timer is gone');
    }

    public function testSettledFuturesAnswerAtOnce(): void
    {
        self::assertSame('ready', Future::complete('ready')->await());
        self::assertTrue(Future::complete()->isComplete());

        $failed = Future::error(new \DomainException('failed'));
        self::assertTrue($failed->isComplete());
        $this->expectException(\DomainException::class);
        $failed->await();
    }

    public function testADeferredFutureWakesEveryAwaiter(): void
    {
        $deferred = new DeferredFuture();
        $awaiters = [];
        for ($i = 0; $i < 3; $i++) {
            $awaiters[] = Async::run(static fn (): string => $deferred->future()->await() . " $i");
        }
        Async::run(static function () use ($deferred): void {
            Async::delay(0.005);
            $deferred->complete('value');
        });

        self::assertFalse($deferred->isComplete());
        self::assertSame(['value 0', 'value 1', 'value 2'], Future::awaitAll($awaiters));
        self::assertTrue($deferred->isComplete());
    }

    public function testAFailedDeferredThrowsIntoItsAwaiter(): void
    {
        $deferred = new DeferredFuture();
        Async::run(static function () use ($deferred): void {
            $deferred->fail(new \DomainException('producer failed'));
        });

        $this->expectExceptionObject(new \DomainException('producer failed'));
        $deferred->future()->await();
    }

    public function testADeferredCannotBeSettledTwice(): void
    {
        $deferred = new DeferredFuture();
        $deferred->complete(1);

        $this->expectException(\Error::class);
        $deferred->fail(new \DomainException('too late'));
    }

    public function testCancellingAnAwaitLeavesTheTaskRunning(): void
    {
        $deferred = new DeferredFuture();
        $source = new CancellationSource();
        $waiter = Async::run(static fn () => $deferred->future()->await($source));
        Async::run(static function () use ($source): void {
            Async::delay(0.005);
            $source->cancel();
        });

        try {
            $waiter->await();
            self::fail('The await should have been cancelled');
        } catch (CancelledException $e) {
            self::assertSame('The operation was cancelled', $e->getMessage());
        }
        self::assertFalse($deferred->isComplete());
        $deferred->complete('later');
        self::assertSame('later', $deferred->future()->await());
    }

    public function testAFailureAfterTheOnlyAwaiterGaveUpIsReported(): void
    {
        $deferred = new DeferredFuture();
        try {
            $deferred->future()->await(new TimeoutCancellation(0.005));
            self::fail('The await should have timed out');
        } catch (TimeoutException) {
        }

        $deferred->fail(new \DomainException('nobody is listening any more'));
        unset($deferred);

        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame('nobody is listening any more', $reported[0][0]->getMessage());
    }

    public function testAnAwaitWithAnAlreadyCancelledTokenThrowsAtOnce(): void
    {
        $source = new CancellationSource();
        $source->cancel();
        $deferred = new DeferredFuture();

        $this->expectException(CancelledException::class);
        $deferred->future()->await($source);
    }
}
