<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\KeyedWaiters;
use Bobbin\Async\Timer;
use Revolt\EventLoop;

final class KeyedWaitersTest extends AsyncTestCase
{
    public function testSettledFibersRunInsideRunSettledInTheOrderTheyWereSettled(): void
    {
        $waiters = new KeyedWaiters();
        $log = [];
        foreach ([1, 2, 3] as $key) {
            Async::run(static function () use ($waiters, $key, &$log): void {
                $log[] = "$key got " . $waiters->wait($key);
            });
        }
        Async::delay(0.001);
        self::assertSame(3, $waiters->count());

        // Settled from a fiber of our own, so no loop turn can run them before runSettled().
        Async::run(static function () use ($waiters, &$log): void {
            $waiters->settle(3, 'c');
            $waiters->settle(1, 'a');
            $waiters->settle(2, 'b');
            $log[] = 'settled';
            $waiters->runSettled();
            $log[] = 'ran';
        })->await();

        self::assertSame(['settled', '3 got c', '1 got a', '2 got b', 'ran'], $log);
        self::assertSame(0, $waiters->count());
    }

    public function testASettledFiberRunsOnTheNextLoopTurnWhenNobodyRunsThem(): void
    {
        $waiters = new KeyedWaiters();
        $task = Async::run(static fn () => $waiters->wait(7));
        Async::delay(0.001);

        self::assertTrue($waiters->settle(7, 'seven'));

        self::assertSame('seven', $task->await());
    }

    public function testAWaitInMainIsSettledThroughTheLoop(): void
    {
        $waiters = new KeyedWaiters();
        Timer::after(0.002, static function () use ($waiters): void {
            $waiters->settle(1, 'for main');
        });

        self::assertSame('for main', $waiters->wait(1));
    }

    public function testAFiberWokenBySettlingMaySettleAnotherThatRunsInTheSamePass(): void
    {
        $waiters = new KeyedWaiters();
        $log = [];
        $first = Async::run(static function () use ($waiters, &$log): void {
            $log[] = 'first got ' . $waiters->wait(1);
            $waiters->settle(2, 'from first');
        });
        $second = Async::run(static function () use ($waiters, &$log): void {
            $log[] = 'second got ' . $waiters->wait(2);
        });
        Async::delay(0.001);

        Async::run(static function () use ($waiters, &$log): void {
            $waiters->settle(1, 'x');
            $waiters->runSettled();
            $log[] = 'ran';
        })->await();
        Future::awaitAll([$first, $second]);

        self::assertSame(['first got x', 'second got from first', 'ran'], $log);
    }

    public function testACancelledWaitThrowsAndItsLateValueIsDropped(): void
    {
        $waiters = new KeyedWaiters();
        $source = new CancellationSource();
        $task = Async::run(static fn () => $waiters->wait(5, $source->token()));
        Async::delay(0.001);

        $source->cancel();
        Async::delay(0.001);

        self::assertFalse($waiters->isWaiting(5));
        self::assertFalse($waiters->settle(5, 'too late'));
        $this->expectException(CancelledException::class);
        $task->await();
    }

    public function testAWaitAlreadySettledIgnoresALateCancellation(): void
    {
        $waiters = new KeyedWaiters();
        $source = new CancellationSource();
        $task = Async::run(static fn () => $waiters->wait(5, $source->token()));
        Async::delay(0.001);

        Async::run(static function () use ($waiters, $source): void {
            $waiters->settle(5, 'kept');
            $source->cancel();
        })->await();

        self::assertSame('kept', $task->await());
    }

    public function testFailAllThrowsIntoEveryWaiterNotSettledYet(): void
    {
        $waiters = new KeyedWaiters();
        $tasks = [];
        foreach ([1, 2, 3] as $key) {
            $tasks[$key] = Async::run(static fn () => $waiters->wait($key));
        }
        Async::delay(0.001);
        $error = new \RuntimeException('connection lost');

        Async::run(static function () use ($waiters, $error): void {
            $waiters->settle(2, 'answered before the loss');
            $waiters->failAll($error);
        })->await();

        self::assertSame('answered before the loss', $tasks[2]->await());
        foreach ([1, 3] as $key) {
            try {
                $tasks[$key]->await();
                self::fail("waiter $key was not failed");
            } catch (\RuntimeException $caught) {
                self::assertSame($error, $caught);
            }
        }
        self::assertSame(0, $waiters->count());
    }

    public function testWaitingTwiceForOneKeyIsRefused(): void
    {
        $waiters = new KeyedWaiters();
        Async::run(static fn () => $waiters->wait(1));
        Async::delay(0.001);

        try {
            $this->expectException(\LogicException::class);
            $waiters->wait(1);
        } finally {
            $waiters->settle(1, null);
            Async::delay(0.001);
        }
    }

    public function testTheOldestKeyIsTheOneWaitedForLongest(): void
    {
        $waiters = new KeyedWaiters();
        self::assertNull($waiters->oldestKey());
        foreach ([9, 4, 6] as $key) {
            Async::run(static fn () => $waiters->wait($key));
            Async::delay(0.001);
        }

        self::assertSame(9, $waiters->oldestKey());
        Async::run(static function () use ($waiters): void {
            $waiters->settle(9, null);
        })->await();
        self::assertSame(4, $waiters->oldestKey());

        foreach ([4, 6] as $key) {
            $waiters->settle($key, null);
        }
        Async::delay(0.001);
    }

    public function testAnErrorAWokenFiberEndsWithIsReportedAndTheOthersStillRun(): void
    {
        $waiters = new KeyedWaiters();
        $error = new \DomainException('thrown by a woken fiber');
        $ranAfter = false;
        EventLoop::queue(static function () use ($waiters, $error): void {
            // The loop's callback fiber itself waits: nothing catches what it throws once woken.
            $waiters->wait(1);
            throw $error;
        });
        $other = Async::run(static function () use ($waiters, &$ranAfter): void {
            $waiters->wait(2);
            $ranAfter = true;
        });
        Async::delay(0.001);

        Async::run(static function () use ($waiters): void {
            $waiters->settle(1, null);
            $waiters->settle(2, null);
            $waiters->runSettled();
        })->await();
        $other->await();

        self::assertTrue($ranAfter);
        $reported = $this->takeReported();
        self::assertCount(1, $reported);
        self::assertSame($error, $reported[0][0]->getPrevious() ?? $reported[0][0]);
    }
}
