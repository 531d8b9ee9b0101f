<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolSettings;
use Bobbin\Pool\PoolTimeoutException;
use PHPUnit\Framework\TestCase;

/** The shared pool's waiting, growth, health checks and bookkeeping, over a connector without a database. */
final class PoolTest extends TestCase
{
    private FakeConnector $connector;

    protected function setUp(): void
    {
        $this->connector = new FakeConnector();
    }

    /** @return Pool<FakeConnection> */
    private function pool(mixed ...$settings): Pool
    {
        return new Pool($this->connector, new PoolSettings(...($settings + ['maxSize' => 2, 'acquireTimeout' => 1.0])));
    }

    public function testItGrowsLazilyAndReusesTheMostRecentlyReturnedConnection(): void
    {
        $pool = $this->pool(maxSize: 3);
        $a = $pool->acquire();
        $b = $pool->acquire();
        self::assertSame(2, $this->connector->opened);
        $pool->release($a);
        $pool->release($b);

        self::assertSame($b, $pool->acquire(), 'the warm end of the idle list');
        self::assertSame(2, $this->connector->opened);
    }

    public function testWaitersGetReturnedConnectionsFirstComeFirstServed(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        $order = [];
        $futures = [];
        foreach ([1, 2, 3] as $n) {
            $futures[] = Async::run(static function () use ($pool, $n, &$order): void {
                $pool->release($pool->acquire());
                $order[] = $n;
            });
        }
        Async::delay(0.01);
        self::assertSame(3, $pool->statistics()->waiting);
        $pool->release($held);
        Future::awaitAll($futures);

        self::assertSame([1, 2, 3], $order);
        self::assertSame(1, $this->connector->opened);
    }

    public function testAWaitEndsAfterTheAcquireTimeoutWithAPoolTimeout(): void
    {
        $pool = $this->pool(maxSize: 1, acquireTimeout: 0.1);
        $held = $pool->acquire();
        $started = \microtime(true);
        try {
            $pool->acquire();
            self::fail('the wait must time out');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('0.100 s', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.09, \microtime(true) - $started);
        $pool->release($held);
        self::assertSame(1, $pool->statistics()->timeouts);
        self::assertSame(0, $pool->statistics()->waiting);
        self::assertSame(1, $pool->statistics()->idle);
    }

    public function testACancelledWaitThrowsTheCancellationAndLeavesTheQueue(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        $source = new CancellationSource();
        Async::run(static fn () => $source->cancel());
        try {
            $pool->acquire($source->token());
            self::fail('the wait must be cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(PoolTimeoutException::class, $e);
        }
        self::assertSame(0, $pool->statistics()->waiting);
        $pool->release($held);
        self::assertSame($held, $pool->acquire());
    }

    public function testOneWaiterTooManyIsTurnedAwayAtOnce(): void
    {
        $pool = $this->pool(maxSize: 1, maxWaiters: 1);
        $held = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.01);
        try {
            $pool->acquire();
            self::fail('a second waiter is one too many');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('already waiting', $e->getMessage());
        }
        $pool->release($held);
        self::assertSame($held, $waiter->await());
    }

    public function testADeadIdleConnectionIsDiscardedAndNeverHandedOut(): void
    {
        $pool = $this->pool();
        $first = $pool->acquire();
        $pool->release($first);
        $first->alive = false;

        $second = $pool->acquire();
        self::assertNotSame($first, $second);
        self::assertTrue($first->closed);
        self::assertSame(1, $pool->statistics()->discarded);
        self::assertSame(1, $pool->statistics()->open);
    }

    public function testAConnectionIdleLongerThanCheckAfterIdleIsPingedAndDroppedWhenThePingFails(): void
    {
        $pool = $this->pool(checkAfterIdle: 0.0);
        $first = $pool->acquire();
        $pool->release($first);
        $first->lastUsedAt -= 1.0;
        $first->pingSucceeds = false;

        self::assertNotSame($first, $pool->acquire());
        self::assertSame(1, $first->pings);
        self::assertTrue($first->closed);
    }

    public function testAFreshConnectionIsNotPinged(): void
    {
        $pool = $this->pool(checkAfterIdle: 5.0);
        $first = $pool->acquire();
        $pool->release($first);

        self::assertSame($first, $pool->acquire());
        self::assertSame(0, $first->pings);
    }

    public function testAConnectionThatNeedsCleaningComesBackOnlyWhenItIsReady(): void
    {
        $pool = $this->pool(maxSize: 1);
        $connection = $pool->acquire();
        $cleaned = new DeferredFuture();
        $connection->onReturn = $cleaned->future();
        $pool->release($connection);
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.01);
        self::assertFalse($waiter->isComplete(), 'not handed out while it is being cleaned');
        $cleaned->complete();

        self::assertSame($connection, $waiter->await());
    }

    public function testAConnectionBrokenOnReturnIsReplacedForTheLongestWaiter(): void
    {
        $pool = $this->pool(maxSize: 1);
        $broken = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.01);
        $broken->onReturn = false;
        $pool->release($broken);

        $replacement = $waiter->await();
        self::assertNotSame($broken, $replacement);
        self::assertTrue($broken->closed);
        self::assertSame(2, $this->connector->opened);
        self::assertSame(1, $pool->statistics()->open);
    }

    public function testAFailedReplacementFailsTheLongestWaiterWithTheConnectErrorAtOnce(): void
    {
        $pool = $this->pool(maxSize: 1, acquireTimeout: 5.0);
        $broken = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.01);
        $this->connector->openFails = new \RuntimeException('server down');
        $broken->onReturn = false;
        $started = \microtime(true);
        $pool->release($broken);

        try {
            $waiter->await();
            self::fail('the waiter must get the connect error');
        } catch (\RuntimeException $e) {
            self::assertSame('server down', $e->getMessage());
        }
        self::assertLessThan(1.0, \microtime(true) - $started);
        self::assertSame(0, $pool->statistics()->open);
    }

    public function testAnOpenEndedByItsCallersDeadlineLeavesTheSlotToTheCallerWaitingInLine(): void
    {
        $pool = $this->pool(maxSize: 1, acquireTimeout: 5.0);
        $this->connector->openDelay = 0.1;
        $hurried = Async::run(static fn () => $pool->acquire(new TimeoutCancellation(0.02)));
        Async::delay(0.005);
        $patient = Async::run(static fn () => $pool->acquire());
        Async::delay(0.005);
        self::assertSame(1, $pool->statistics()->waiting, 'the pool is full: the second caller waits in line');

        try {
            $hurried->await();
            self::fail('the hurried caller waited past its deadline');
        } catch (TimeoutException) {
        }
        $started = \microtime(true);
        self::assertInstanceOf(FakeConnection::class, $patient->await());
        self::assertLessThan(1.0, \microtime(true) - $started, 'served by an open of its own, not after the acquire timeout');
    }

    public function testAFailedOpenDoesNotCountAsOpen(): void
    {
        $pool = $this->pool(maxSize: 1);
        $this->connector->openFails = new \RuntimeException('refused');
        try {
            $pool->acquire();
            self::fail('the open error must reach the caller');
        } catch (\RuntimeException) {
        }
        $this->connector->openFails = null;

        self::assertSame(0, $pool->statistics()->open);
        self::assertInstanceOf(FakeConnection::class, $pool->acquire());
    }

    public function testAnExpiredConnectionIsClosedWhenItComesBack(): void
    {
        $pool = $this->pool(maxLifetime: 10.0);
        $connection = $pool->acquire();
        $connection->openedAt -= 11.0;
        $pool->release($connection);

        self::assertTrue($connection->closed);
        self::assertSame(0, $pool->statistics()->open);
    }

    public function testTheSweeperClosesIdleConnectionsAboveTheMinSize(): void
    {
        $pool = $this->pool(maxSize: 3, minSize: 1, idleTimeout: 0.2);
        $connections = [$pool->acquire(), $pool->acquire(), $pool->acquire()];
        foreach ($connections as $connection) {
            $pool->release($connection);
            $connection->lastUsedAt -= 1.0;
        }
        Async::delay(0.35);

        self::assertSame(1, $pool->statistics()->open);
        self::assertSame(2, $pool->statistics()->discarded);
    }

    public function testWarmUpOpensTheMinSize(): void
    {
        $pool = $this->pool(maxSize: 4, minSize: 3);
        $pool->warmUp();

        self::assertSame(3, $pool->statistics()->idle);
        self::assertSame(3, $this->connector->opened);
    }

    public function testTryAcquireIdleNeverWaitsNorOpens(): void
    {
        $pool = $this->pool(maxSize: 1);
        self::assertNull($pool->tryAcquireIdle());
        $connection = $pool->acquire();
        self::assertNull($pool->tryAcquireIdle());
        $pool->release($connection);

        self::assertSame($connection, $pool->tryAcquireIdle());
    }

    public function testClosingFailsTheWaitersAndClosesConnectionsAsTheyComeBack(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->acquire());
        Async::delay(0.01);
        $pool->close();

        try {
            $waiter->await();
            self::fail('the waiter must be told');
        } catch (PoolClosedException) {
        }
        $pool->release($held);
        self::assertTrue($held->closed);
        $this->expectException(PoolClosedException::class);
        $pool->acquire();
    }
}
