<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\Mutex;

final class MutexTest extends AsyncTestCase
{
    public function testCriticalSectionsThatSuspendNeverOverlap(): void
    {
        $mutex = new Mutex();
        $balance = 0;
        $tasks = [];
        for ($i = 0; $i < 20; $i++) {
            $tasks[] = Async::run(static function () use ($mutex, &$balance): void {
                $mutex->synchronized(static function () use (&$balance): void {
                    // Read, suspend, write: without the mutex, updates would be lost.
                    $read = $balance;
                    Async::delay(0);
                    $balance = $read + 1;
                });
            });
        }

        Future::awaitAll($tasks);

        self::assertSame(20, $balance);
        self::assertFalse($mutex->isLocked());
    }

    public function testWaitersGetTheMutexInArrivalOrder(): void
    {
        $mutex = new Mutex();
        $held = $mutex->acquire();
        self::assertTrue($mutex->isLocked());
        $order = [];
        $tasks = [];
        for ($i = 1; $i <= 5; $i++) {
            $tasks[] = Async::run(static function () use ($mutex, $i, &$order): void {
                $mutex->synchronized(static function () use ($i, &$order): void {
                    $order[] = $i;
                });
            });
            Async::delay(0);
        }

        $held->release();
        Future::awaitAll($tasks);

        self::assertSame([1, 2, 3, 4, 5], $order);
    }

    public function testACancelledWaiterLeavesTheMutexUsable(): void
    {
        $mutex = new Mutex();
        $held = $mutex->acquire();
        $source = new CancellationSource();
        $waiter = Async::run(static fn () => $mutex->acquire($source));
        Async::delay(0);

        $source->cancel();
        try {
            $waiter->await();
            self::fail('The acquire should have been cancelled');
        } catch (CancelledException) {
        }
        $held->release();

        self::assertFalse($mutex->isLocked());
        $mutex->acquire()->release();
    }
}
