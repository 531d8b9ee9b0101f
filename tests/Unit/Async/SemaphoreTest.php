<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\Semaphore;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;

final class SemaphoreTest extends AsyncTestCase
{
    public function testNoMoreThanThePermitCountHoldAtOnce(): void
    {
        $semaphore = new Semaphore(3);
        $holding = 0;
        $peak = 0;
        $tasks = [];
        for ($i = 0; $i < 12; $i++) {
            $tasks[] = Async::run(static function () use ($semaphore, &$holding, &$peak): void {
                $semaphore->synchronized(static function () use (&$holding, &$peak): void {
                    $holding++;
                    $peak = \max($peak, $holding);
                    Async::delay(0.002);
                    $holding--;
                });
            });
        }

        Future::awaitAll($tasks);

        self::assertSame(3, $peak);
        self::assertSame(3, $semaphore->available());
        self::assertSame(0, $semaphore->waiting());
    }

    public function testWaitersAreServedFirstComeFirstServed(): void
    {
        $semaphore = new Semaphore(1);
        $first = $semaphore->acquire();
        $order = [];
        $tasks = [];
        foreach (['w1', 'w2', 'w3', 'w4'] as $name) {
            $tasks[] = Async::run(static function () use ($semaphore, $name, &$order): void {
                $lock = $semaphore->acquire();
                $order[] = $name;
                Async::delay(0);
                $lock->release();
            });
            Async::delay(0);
        }
        self::assertSame(4, $semaphore->waiting());

        $first->release();
        Future::awaitAll($tasks);

        self::assertSame(['w1', 'w2', 'w3', 'w4'], $order);
    }

    public function testAReleasedPermitGoesToTheLongestWaiterNotToANewArrival(): void
    {
        $semaphore = new Semaphore(1);
        $held = $semaphore->acquire();
        $waiter = Async::run(static fn () => $semaphore->acquire());
        Async::delay(0);

        $held->release();

        self::assertNull($semaphore->tryAcquire(), 'the permit already belongs to the waiter');
        self::assertSame(0, $semaphore->available());
        $waiter->await()->release();
        self::assertSame(1, $semaphore->available());
    }

    public function testCancellingAQueuedWaiterDoesNotLeakAPermit(): void
    {
        $semaphore = new Semaphore(1);
        $held = $semaphore->acquire();
        $source = new CancellationSource();
        $cancelled = Async::run(static fn () => $semaphore->acquire($source));
        $patient = Async::run(static fn () => $semaphore->acquire());
        Async::delay(0);
        self::assertSame(2, $semaphore->waiting());

        $source->cancel();
        try {
            $cancelled->await();
            self::fail('The queued acquire should have been cancelled');
        } catch (CancelledException) {
        }
        self::assertSame(1, $semaphore->waiting());

        $held->release();
        $patient->await()->release();

        self::assertSame(1, $semaphore->available());
        self::assertSame(0, $semaphore->waiting());
        self::assertNotNull($semaphore->tryAcquire());
    }

    public function testAWaiterThatTimesOutDoesNotLeakAPermit(): void
    {
        $semaphore = new Semaphore(2);
        $a = $semaphore->acquire();
        $b = $semaphore->acquire();

        try {
            $semaphore->acquire(new TimeoutCancellation(0.01));
            self::fail('The acquire should have timed out');
        } catch (TimeoutException) {
        }
        $a->release();
        $b->release();

        self::assertSame(2, $semaphore->available());
        self::assertSame(0, $semaphore->waiting());
    }

    public function testACancellationArrivingAfterThePermitWasHandedOverIsIgnored(): void
    {
        $semaphore = new Semaphore(1);
        $held = $semaphore->acquire();
        $source = new CancellationSource();
        $waiter = Async::run(static fn () => $semaphore->acquire($source));
        Async::delay(0);

        // Same tick: the permit is handed to the waiter, then its cancellation is requested.
        $held->release();
        $source->cancel();

        $lock = $waiter->await();
        Async::delay(0.001); // let the late cancellation callback run
        self::assertFalse($lock->isReleased());
        self::assertSame(0, $semaphore->available());
        $lock->release();
        self::assertSame(1, $semaphore->available());
    }

    public function testSynchronizedReleasesThePermitWhenTheCriticalSectionThrows(): void
    {
        $semaphore = new Semaphore(1);

        try {
            $semaphore->synchronized(static function (): never {
                throw new \DomainException('inside');
            });
            self::fail('The exception should pass through');
        } catch (\DomainException) {
        }

        self::assertSame(1, $semaphore->available());
        self::assertSame(42, $semaphore->synchronized(static fn (): int => 42));
    }

    public function testReleasingALockTwiceReturnsOnlyOnePermit(): void
    {
        $semaphore = new Semaphore(2);
        $lock = $semaphore->acquire();

        $lock->release();
        $lock->release();

        self::assertTrue($lock->isReleased());
        self::assertSame(2, $semaphore->available());
        self::assertSame(2, $semaphore->permits());
    }

    public function testALockDroppedWithoutReleaseGivesItsPermitBack(): void
    {
        $semaphore = new Semaphore(1);
        $task = Async::run(static function () use ($semaphore): never {
            $lock = $semaphore->acquire();
            throw new \DomainException('failed while holding the permit');
        });
        try {
            $task->await();
        } catch (\DomainException) {
        }
        unset($task);

        self::assertSame(1, $semaphore->available());
    }

    public function testAPermitCountBelowOneIsRejected(): void
    {
        $this->expectException(\ValueError::class);
        new Semaphore(0);
    }
}
