<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\Semaphore;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Revolt\EventLoop;

/** CancellationSource, TimeoutCancellation and CompositeCancellation. */
final class CancellationTest extends AsyncTestCase
{
    public function testASourceCallsItsSubscribersFromTheLoopNotFromCancel(): void
    {
        $source = new CancellationSource();
        $received = [];
        $source->subscribe(static function (CancelledException $e) use (&$received): void {
            $received[] = $e;
        });
        $reason = new CancelledException('client went away');

        $source->cancel($reason);
        self::assertSame([], $received, 'cancel() may run inside the waiter: callbacks are queued');
        Async::delay(0);

        self::assertSame([$reason], $received);
        self::assertTrue($source->isRequested());
    }

    public function testASourceKeepsItsFirstReason(): void
    {
        $source = new CancellationSource();
        $first = new CancelledException('first');
        $source->cancel($first);
        $source->cancel(new CancelledException('second'));

        $this->expectExceptionObject($first);
        $source->throwIfRequested();
    }

    public function testAnUnsubscribedCallbackIsNeverCalled(): void
    {
        $source = new CancellationSource();
        $called = false;
        $id = $source->subscribe(static function () use (&$called): void {
            $called = true;
        });

        $source->unsubscribe($id);
        $source->cancel();
        Async::delay(0);

        self::assertFalse($called);
    }

    public function testSubscribingAfterCancellationStillCallsBackFromTheLoop(): void
    {
        $source = new CancellationSource();
        $source->cancel();
        $called = false;

        $source->subscribe(static function () use (&$called): void {
            $called = true;
        });
        self::assertFalse($called);
        Async::delay(0);

        self::assertTrue($called);
    }

    public function testATimeoutAbortsAWaitWithTimeoutException(): void
    {
        $never = new DeferredFuture();
        $timeout = new TimeoutCancellation(0.01, 'query took too long');

        try {
            Async::run(static fn () => $never->future()->await($timeout))->await();
            self::fail('The wait should have timed out');
        } catch (TimeoutException $e) {
            self::assertInstanceOf(CancelledException::class, $e);
            self::assertSame('query took too long', $e->getMessage());
        }
        self::assertTrue($timeout->isRequested());
    }

    public function testATimeoutEndsAPlainScriptWaitEvenWhenNothingElseIsPending(): void
    {
        $never = new DeferredFuture();

        $this->expectException(TimeoutException::class);
        $never->future()->await(new TimeoutCancellation(0.01));
    }

    public function testDisposeRemovesTheTimerAtOnce(): void
    {
        $before = self::loopCallbacks();
        $timeout = new TimeoutCancellation(30);
        self::assertCount(\count($before) + 1, self::loopCallbacks());

        $timeout->dispose();
        $timeout->dispose();

        self::assertSame($before, self::loopCallbacks());
        self::assertFalse($timeout->isRequested());
    }

    public function testDroppingATimeoutRemovesItsTimer(): void
    {
        $before = self::loopCallbacks();
        $timeout = new TimeoutCancellation(30);

        unset($timeout);

        self::assertSame($before, self::loopCallbacks());
    }

    public function testATimeoutNobodyWaitsOnDoesNotKeepTheLoopAlive(): void
    {
        $timeout = new TimeoutCancellation(30);
        $started = \hrtime(true);

        EventLoop::run();

        self::assertLessThan(5.0, (\hrtime(true) - $started) / 1e9);
        self::assertFalse($timeout->isRequested());
    }

    public function testACompositeIsRequestedWhenAnyPartIs(): void
    {
        $shutdown = new CancellationSource();
        $clientGone = new CancellationSource();
        $composite = new CompositeCancellation($shutdown, $clientGone);
        self::assertFalse($composite->isRequested());

        $clientGone->cancel(new CancelledException('client gone'));

        self::assertTrue($composite->isRequested());
        $this->expectExceptionMessage('client gone');
        $composite->throwIfRequested();
    }

    public function testACompositeCallsBackOnceEvenWhenEveryPartFires(): void
    {
        $a = new CancellationSource();
        $b = new CancellationSource();
        $composite = new CompositeCancellation($a, $b);
        $reasons = [];
        $composite->subscribe(static function (CancelledException $e) use (&$reasons): void {
            $reasons[] = $e->getMessage();
        });

        $a->cancel(new CancelledException('a'));
        $b->cancel(new CancelledException('b'));
        Async::delay(0);

        self::assertSame(['a'], $reasons);
    }

    public function testACompositeWithATimeoutAbortsAWait(): void
    {
        $never = new DeferredFuture();
        $composite = new CompositeCancellation(new CancellationSource(), new TimeoutCancellation(0.01));

        $this->expectException(TimeoutException::class);
        $never->future()->await($composite);
    }

    public function testUnsubscribingFromNestedCompositesReachesEveryPart(): void
    {
        $a = new SubscriptionCountingCancellation();
        $b = new SubscriptionCountingCancellation();
        $c = new SubscriptionCountingCancellation();
        $outer = new CompositeCancellation(new CompositeCancellation($a, $b), $c);
        $id = $outer->subscribe(static function (): void {
        });
        self::assertSame([1, 1, 1], [$a->liveSubscriptions(), $b->liveSubscriptions(), $c->liveSubscriptions()]);

        $outer->unsubscribe($id);

        self::assertSame([0, 0, 0], [$a->liveSubscriptions(), $b->liveSubscriptions(), $c->liveSubscriptions()]);
    }

    public function testFinishedWaitsLeaveNoSubscriptionOnALongLivedSource(): void
    {
        $shutdown = new SubscriptionCountingCancellation();
        $never = new DeferredFuture();
        [$reader, $writer] = $this->socketPair();
        \fwrite($writer, 'x');
        $semaphore = new Semaphore(1);

        for ($i = 0; $i < 20; $i++) {
            $timeout = new TimeoutCancellation(5.0);
            $perRequest = new CompositeCancellation($shutdown, new CompositeCancellation($timeout));
            Async::delay(0, $perRequest);
            Async::awaitReadable($reader, 5.0, $perRequest);
            $semaphore->acquire($perRequest)->release();
            Future::awaitAny([Future::complete(1), $never->future()], $perRequest);
            try {
                $never->future()->await(new CompositeCancellation($shutdown, new TimeoutCancellation(0)));
            } catch (TimeoutException) {
            }
            $timeout->dispose();
        }

        self::assertSame(0, $shutdown->liveSubscriptions());
    }
}
