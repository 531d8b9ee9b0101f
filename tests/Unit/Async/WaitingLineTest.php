<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\WaitingLine;
use Revolt\EventLoop;

final class WaitingLineTest extends AsyncTestCase
{
    public function testWaitersAreHandedValuesInTheOrderTheyCame(): void
    {
        $line = new WaitingLine(5.0);
        $tasks = [];
        foreach (['w1', 'w2', 'w3'] as $name) {
            $tasks[$name] = Async::run(static fn (): string => $name . ' got ' . $line->wait());
            Async::delay(0);
        }
        self::assertSame(3, $line->count());

        self::assertTrue($line->handToFirst('a'));
        self::assertTrue($line->handToFirst('b'));
        self::assertTrue($line->handToFirst('c'));
        self::assertFalse($line->handToFirst('d'), 'nobody is left in line');

        self::assertSame(['w1' => 'w1 got a', 'w2' => 'w2 got b', 'w3' => 'w3 got c'], Future::awaitAll($tasks));
        self::assertSame(0, $line->count());
    }

    public function testEachWaiterTimesOutItsOwnTimeoutAfterItCame(): void
    {
        $line = new WaitingLine(0.1, 'no connection in time');
        $started = \microtime(true);
        $first = Async::run(static fn () => $line->wait());
        Async::delay(0.05);
        $second = Async::run(static fn () => $line->wait());
        $ended = [];
        foreach (['first' => $first, 'second' => $second] as $name => $task) {
            try {
                $task->await();
                self::fail("$name was handed a value nobody gave");
            } catch (TimeoutException $e) {
                self::assertSame('no connection in time', $e->getMessage());
                $ended[$name] = \microtime(true) - $started;
            }
        }

        self::assertGreaterThanOrEqual(0.095, $ended['first']);
        self::assertLessThan(0.145, $ended['first'], 'the first waiter does not wait for the second one\'s deadline');
        self::assertGreaterThanOrEqual(0.145, $ended['second'], 'the second waiter gets its own full timeout');
        self::assertSame(0, $line->count());
    }

    public function testAWaiterServedEarlyLeavesTheTimerToTheNextOne(): void
    {
        $line = new WaitingLine(0.1);
        $first = Async::run(static fn () => $line->wait());
        Async::delay(0.05);
        $second = Async::run(static fn () => $line->wait());
        Async::delay(0);
        $line->handToFirst('served');

        self::assertSame('served', $first->await());
        $started = \microtime(true);
        try {
            $second->await();
            self::fail('the second waiter was never served');
        } catch (TimeoutException) {
            // Its deadline is ~0.05 s after the first one's, which the line's timer was set for.
            self::assertGreaterThan(0.03, \microtime(true) - $started);
        }
    }

    public function testACancelledWaiterLeavesTheLineAndTheNextOneIsServed(): void
    {
        $line = new WaitingLine(5.0);
        $source = new CancellationSource();
        $cancelled = Async::run(static fn () => $line->wait($source->token()));
        $next = Async::run(static fn () => $line->wait());
        Async::delay(0);

        $source->cancel();

        try {
            $cancelled->await();
            self::fail('the cancelled waiter was served');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(TimeoutException::class, $e);
        }
        self::assertSame(1, $line->count());
        $line->handToFirst('for next');
        self::assertSame('for next', $next->await());
    }

    public function testAValueHandedOverIsNotLostToACancellationThatComesInTheSameTick(): void
    {
        $line = new WaitingLine(5.0);
        $source = new CancellationSource();
        $waiter = Async::run(static fn () => $line->wait($source->token()));
        Async::delay(0);

        $line->handToFirst('connection');
        $source->cancel();

        self::assertSame('connection', $waiter->await());
    }

    public function testFailFirstAndFailAllThrowIntoTheWaiters(): void
    {
        $line = new WaitingLine(5.0);
        $tasks = [];
        for ($i = 0; $i < 3; $i++) {
            $tasks[] = Async::run(static fn () => $line->wait());
        }
        Async::delay(0);

        self::assertTrue($line->failFirst(new \RuntimeException('connect failed')));
        $line->failAll(new \LogicException('closed'));

        $errors = [];
        foreach ($tasks as $task) {
            try {
                $task->await();
            } catch (\Throwable $e) {
                $errors[] = $e::class . ': ' . $e->getMessage();
            }
        }
        self::assertSame(['RuntimeException: connect failed', 'LogicException: closed', 'LogicException: closed'], $errors);
        self::assertFalse($line->failFirst(new \RuntimeException('nobody')));
    }

    public function testAnEmptyLineDoesNotKeepTheLoopAlive(): void
    {
        $line = new WaitingLine(30.0);
        $waiter = Async::run(static fn () => $line->wait());
        Async::delay(0);
        $line->handToFirst('done');
        $waiter->await();

        $started = \microtime(true);
        EventLoop::run(); // returns once nothing referenced is left
        self::assertLessThan(1.0, \microtime(true) - $started, 'the 30 s timer of a served waiter held the loop');
    }

    public function testANegativeTimeoutIsRefused(): void
    {
        $this->expectException(\ValueError::class);
        new WaitingLine(-1.0);
    }
}
