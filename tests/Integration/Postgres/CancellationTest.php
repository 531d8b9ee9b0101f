<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\ConnectionState;
use Bobbin\Postgres\Exception\QueryTimeoutException;

final class CancellationTest extends PostgresTestCase
{
    public function testACancelledFibersStatementDisappearsFromTheServerWithinASecond(): void
    {
        $pool = $this->pool(maxSize: 4);
        $source = new CancellationSource();
        $sleeper = Async::run(static fn () => $pool->query('SELECT pg_sleep(10) /* pgtest-cancel-1 */', [], $source));
        Async::delay(0.3);
        self::assertSame(1, self::backendsRunning('%pgtest-cancel-1%'));

        $source->cancel();
        try {
            $sleeper->await();
            self::fail('The cancelled fiber must see the cancellation');
        } catch (CancelledException) {
            // Expected.
        }
        $deadline = \microtime(true) + 1.0;
        while (self::backendsRunning('%pgtest-cancel-1%') > 0 && \microtime(true) < $deadline) {
            Async::delay(0.05);
        }

        self::assertSame(0, self::backendsRunning('%pgtest-cancel-1%'));
    }

    public function testAPerQueryTimeoutCancelsTheStatementOnTheServer(): void
    {
        $connection = $this->connect(new ConnectionConfig(self::dsn(), queryTimeout: 0.3));
        $started = \microtime(true);
        try {
            $connection->query('SELECT pg_sleep(10) /* pgtest-cancel-2 */');
            self::fail('The statement must time out');
        } catch (QueryTimeoutException $e) {
            self::assertStringContainsString('0.300 s', $e->getMessage());
        }
        self::assertLessThan(2.0, \microtime(true) - $started);

        self::assertSame(1, $connection->queryValue('SELECT 1'), 'the same connection is usable once drained');
        self::assertLessThan(3.0, \microtime(true) - $started);
        self::assertSame(0, self::backendsRunning('%pgtest-cancel-2%'));
    }

    public function testATimeoutCancellationBoundsOneStatement(): void
    {
        $connection = $this->connect();
        try {
            $connection->query('SELECT pg_sleep(10)', [], new TimeoutCancellation(0.2));
            self::fail('The statement must time out');
        } catch (TimeoutException) {
            // The caller's own cancellation comes back as it was requested.
        }

        // The caller hears back once the server confirmed the cancel (the outcome is known).
        self::assertSame(ConnectionState::Idle, $connection->state());
        self::assertSame(2, $connection->queryValue('SELECT 2'));
        self::assertSame(ConnectionState::Idle, $connection->state());
    }

    public function testAnAbandonedConnectionGoesBackToThePoolOnlyOnceItIsIdle(): void
    {
        $pool = $this->pool(maxSize: 1);
        $firstPid = $pool->queryValue('SELECT pg_backend_pid()');
        try {
            $pool->query('SELECT pg_sleep(10)', [], new TimeoutCancellation(0.2));
        } catch (TimeoutException) {
            // Expected.
        }

        $started = \microtime(true);
        self::assertSame($firstPid, $pool->queryValue('SELECT pg_backend_pid()'), 'the same session, cleanly reused');
        self::assertLessThan(3.0, \microtime(true) - $started);
        self::assertSame(1, $pool->statistics()->open);
        self::assertSame(0, $pool->statistics()->discarded);
    }

    public function testAWaiterCancelledInTheQueueLeavesIt(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        $source = new CancellationSource();
        $waiter = Async::run(static fn () => $pool->queryValue('SELECT 1', [], $source));
        Async::delay(0.05);
        self::assertSame(1, $pool->statistics()->waiting);

        $source->cancel();
        try {
            $waiter->await();
            self::fail('The waiter must be cancelled');
        } catch (CancelledException) {
            // Expected.
        }
        self::assertSame(0, $pool->statistics()->waiting);
        $pool->release($held);
        self::assertSame(1, $pool->statistics()->idle);
    }

    public function testManyCancelledStatementsOnAFullPoolAreAllCleanedUp(): void
    {
        $pool = $this->pool(maxSize: 5);
        // Open all five first: on a busy machine a connect alone can outlast the 0.3 s timeout.
        Future::awaitAll(\array_map(static fn () => Async::run(static fn () => $pool->queryValue('SELECT pg_sleep(0.1)')), \range(1, 5)));
        self::assertSame(5, $pool->statistics()->open);
        $futures = [];
        for ($i = 0; $i < 5; $i++) {
            $futures[] = Async::run(static fn () => $pool->query('SELECT pg_sleep(10) /* pgtest-cancel-3 */', [], new TimeoutCancellation(0.3)));
        }
        foreach ($futures as $future) {
            try {
                $future->await();
            } catch (TimeoutException) {
                // Expected.
            }
        }

        $deadline = \microtime(true) + 5.0;
        while ((self::backendsRunning('%pgtest-cancel-3%') > 0 || $pool->statistics()->idle < 5) && \microtime(true) < $deadline) {
            Async::delay(0.05);
        }

        self::assertSame(0, self::backendsRunning('%pgtest-cancel-3%'));
        self::assertSame(5, $pool->statistics()->idle, 'every drained connection came back');
        self::assertSame(0, $pool->statistics()->discarded);
        self::assertSame([1, 1, 1, 1, 1], Future::awaitAll(\array_map(
            static fn () => Async::run(static fn () => $pool->queryValue('SELECT 1')),
            \range(1, 5),
        )));
        self::assertSame(5, $pool->statistics()->open);
    }

    public function testClosingAConnectionWhoseStatementStillRunsReturnsAtOnce(): void
    {
        $connection = $this->connect();
        $statement = Async::run(static fn () => $connection->query('SELECT pg_sleep(3)'));
        Async::delay(0.2);

        $started = \microtime(true);
        $connection->close(); // as at a worker's end: pg_close() would wait for the statement's result
        $closedAfter = \microtime(true) - $started;

        self::assertLessThan(0.5, $closedAfter, 'closing waited for the running statement');
        try {
            $statement->await();
            self::fail('The statement cannot finish on a closed connection');
        } catch (\Bobbin\Postgres\Exception\ConnectionLostException) {
            // Its outcome is unknown to this caller, and it is told so.
        }
    }
}
