<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\PoolTimeoutException;
use Bobbin\Tests\Support\Async\BusyLoop;
use Bobbin\Tests\Support\EmbeddedPostgres;
use PHPUnit\Framework\Attributes\DataProvider;

final class ConnectionPoolTest extends PostgresTestCase
{
    public function testTwoHundredFibersShareTenConnectionsAndAllFinish(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, fiber int NOT NULL');
        $pool = $this->pool(maxSize: 10, acquireTimeout: 20.0);
        $futures = [];
        for ($i = 0; $i < 200; $i++) {
            $futures[] = Async::run(static function () use ($pool, $table, $i): int {
                $pool->execute("INSERT INTO $table VALUES (\$1, \$2)", [$i, $i]);
                $pool->queryValue('SELECT pg_sleep(0.005)');

                return (int) $pool->queryValue("SELECT fiber FROM $table WHERE id = \$1", [$i]);
            });
        }

        self::assertSame(\range(0, 199), Future::awaitAll($futures));
        $stats = $pool->statistics();
        self::assertSame(10, $stats->open, 'the pool grew to its max size and no further');
        self::assertSame(10, $stats->idle, 'no connection leaked');
        self::assertSame(0, $stats->inUse);
        self::assertSame(0, $stats->waiting);
        self::assertSame(600, $stats->acquisitions);
        self::assertSame(0, $stats->timeouts);
        self::assertGreaterThan(0.0, $stats->maxWaitTime);
        self::assertLessThan(20.0, $stats->maxWaitTime);
        self::assertSame(200, $pool->queryValue("SELECT count(*) FROM $table"));
    }

    public function testTheAcquireTimeoutEndsAWaitWithAClearError(): void
    {
        $pool = $this->pool(maxSize: 1, acquireTimeout: 0.3);
        $held = $pool->acquire();
        $started = \microtime(true);
        try {
            $pool->query('SELECT 1');
            self::fail('The wait must time out');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('0.300 s', $e->getMessage());
            self::assertStringContainsString('all 1 connections', $e->getMessage());
        } finally {
            $pool->release($held);
        }
        self::assertGreaterThanOrEqual(0.25, \microtime(true) - $started);
        self::assertSame(1, $pool->statistics()->timeouts);
        self::assertSame(0, $pool->statistics()->waiting);
        self::assertSame(1, $pool->queryValue('SELECT 1'), 'the pool still works after a timeout');
    }

    public function testWaitersAreServedFirstComeFirstServed(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        $order = [];
        $futures = [];
        foreach ([1, 2, 3] as $n) {
            $futures[] = Async::run(static function () use ($pool, $n, &$order): void {
                $pool->queryValue('SELECT $1::int', [$n]);
                $order[] = $n;
            });
        }
        Async::delay(0.05);
        self::assertSame(3, $pool->statistics()->waiting);
        $pool->release($held);
        Future::awaitAll($futures);

        self::assertSame([1, 2, 3], $order);
    }

    public function testTooManyWaitersAreTurnedAwayAtOnce(): void
    {
        $pool = $this->pool(maxSize: 1, maxWaiters: 1, acquireTimeout: 5.0);
        $held = $pool->acquire();
        $waiter = Async::run(static fn () => $pool->queryValue('SELECT 1'));
        Async::delay(0.05);
        try {
            $pool->queryValue('SELECT 2');
            self::fail('A second waiter is one too many');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('already waiting', $e->getMessage());
        }
        $pool->release($held);
        self::assertSame(1, $waiter->await());
    }

    public function testATerminatedIdleConnectionIsNeverHandedOut(): void
    {
        $pool = $this->pool(maxSize: 2);
        $pid = $pool->queryValue('SELECT pg_backend_pid()');
        EmbeddedPostgres::psql("SELECT pg_terminate_backend($pid)");
        \usleep(100_000);

        self::assertNotSame($pid, $pool->queryValue('SELECT pg_backend_pid()'));
        self::assertSame(1, $pool->statistics()->discarded);
        self::assertSame(1, $pool->statistics()->open);
    }

    /** @return iterable<string, array{float|null}> */
    public static function waits(): iterable
    {
        yield 'waiting through the loop' => [5.0];
        yield 'waiting inside libpq' => [null];
    }

    #[DataProvider('waits')]
    public function testAConnectionTerminatedMomentsAfterItsLastStatementIsReplacedWithoutAnError(?float $queryTimeout): void
    {
        $pool = $this->pool(maxSize: 2, queryTimeout: $queryTimeout);
        $killer = $this->connect();
        $pid = $pool->queryValue('SELECT pg_backend_pid()');
        self::assertTrue($killer->queryValue('SELECT pg_terminate_backend($1)', [$pid]));
        // Once the backend has exited, its FATAL and the end of the stream are on the pooled
        // connection's socket: the next checkout follows within milliseconds of the last use.
        self::awaitExit($pid);

        self::assertNotSame($pid, $pool->queryValue('SELECT pg_backend_pid()'));
        self::assertSame(1, $pool->statistics()->discarded);
        self::assertSame(1, $pool->statistics()->open);
    }

    public function testAConnectionTerminatedWhileTheLoopPolledIsReplacedWithoutAnError(): void
    {
        $pool = $this->pool(maxSize: 2);
        $killer = $this->connect();
        BusyLoop::during(static function () use ($pool, $killer): void {
            $pid = $pool->queryValue('SELECT pg_backend_pid()');
            Async::delay(0.01); // polls made while the connection is idle and quiet
            self::assertTrue($killer->queryValue('SELECT pg_terminate_backend($1)', [$pid]));
            self::awaitExit($pid);
            // Polls that see the FATAL and the end of the stream arrive, which nobody waits for:
            // the checkout must not take the earlier polls' word that the socket is quiet.
            Async::delay(0.01);

            self::assertNotSame($pid, $pool->queryValue('SELECT pg_backend_pid()'));
            self::assertSame(1, $pool->statistics()->discarded);
            self::assertSame(1, $pool->queryValue('SELECT 1'), 'a connection the loop found quiet just now is taken as it is');
        });
    }

    /** Polls the (local) backend process until it is gone; pg_terminate_backend()'s own wait polls every 100 ms. */
    private static function awaitExit(int $pid): void
    {
        $deadline = \microtime(true) + 5.0;
        $noSuchProcess = 3; // ESRCH (POSIX_ESRCH needs PHP 8.3)
        while (\posix_kill($pid, 0) || \posix_get_last_error() !== $noSuchProcess) {
            self::assertLessThan($deadline, \microtime(true), "backend $pid did not exit");
            \usleep(500);
        }
    }

    public function testTerminatingAConnectionInUseGivesConnectionLostAndThePoolRecovers(): void
    {
        $pool = $this->pool(maxSize: 2);
        $connection = $pool->acquire();
        $pid = $connection->pid();
        $pool->release($connection);
        Async::run(static function () use ($pid): void {
            Async::delay(0.3);
            EmbeddedPostgres::psql("SELECT pg_terminate_backend($pid)");
        });

        try {
            $pool->query('SELECT pg_sleep(10)');
            self::fail('The terminated session must fail its statement');
        } catch (ConnectionLostException $e) {
            self::assertSame('57P01', $e->sqlState());
        }

        self::assertSame(1, $pool->queryValue('SELECT 1'));
        self::assertSame(1, $pool->statistics()->open);
        self::assertSame(1, $pool->statistics()->discarded);
    }

    public function testIdleConnectionsAboveTheMinimumAreClosedAfterTheIdleTimeout(): void
    {
        $pool = $this->pool(minSize: 1, maxSize: 3, idleTimeout: 0.3);
        Future::awaitAll([
            Async::run(static fn () => $pool->query('SELECT pg_sleep(0.05)')),
            Async::run(static fn () => $pool->query('SELECT pg_sleep(0.05)')),
            Async::run(static fn () => $pool->query('SELECT pg_sleep(0.05)')),
        ]);
        self::assertSame(3, $pool->statistics()->open);

        Async::delay(1.0);

        self::assertSame(1, $pool->statistics()->open);
        self::assertSame(1, $pool->queryValue('SELECT 1'));
    }

    public function testConnectionsOlderThanTheMaxLifetimeAreReplaced(): void
    {
        $pool = $this->pool(maxSize: 1, maxLifetime: 0.2);
        $first = $pool->queryValue('SELECT pg_backend_pid()');
        Async::delay(0.3);

        self::assertNotSame($first, $pool->queryValue('SELECT pg_backend_pid()'));
    }

    public function testAConnectionIdleLongerThanTheThresholdIsPingedBeforeReuse(): void
    {
        $pool = $this->pool(maxSize: 1, checkAfterIdle: 0.0);
        $pool->queryValue('SELECT 1');
        $pool->queryValue('SELECT 1');

        self::assertSame(0, $pool->statistics()->discarded);
    }

    public function testWarmUpOpensTheMinimumAtOnce(): void
    {
        $pool = $this->pool(minSize: 3, maxSize: 5);
        $pool->warmUp();

        self::assertSame(3, $pool->statistics()->open);
        self::assertSame(3, $pool->statistics()->idle);
    }

    public function testPreparedStatementsAreCachedPerConnectionAndBounded(): void
    {
        $pool = $this->pool(maxSize: 1, statementCacheSize: 3);
        $connection = $pool->acquire();
        try {
            $connection->query('SELECT $1::int', [1]);
            $connection->query('SELECT $1::int', [2]);
            self::assertSame(1, $connection->cachedStatements());
            self::assertSame(1, $connection->queryValue('SELECT count(*) FROM pg_prepared_statements') - 1);
            for ($i = 0; $i < 5; $i++) {
                $connection->query("SELECT $i");
            }
            self::assertSame(3, $connection->cachedStatements());
            self::assertSame(3, $connection->queryValue('SELECT count(*) FROM pg_prepared_statements'));
        } finally {
            $pool->release($connection);
        }
    }

    public function testTheLeastRecentlyUsedStatementIsTheOneDeallocatedWhenTheCacheIsFull(): void
    {
        $pool = $this->pool(maxSize: 1, statementCacheSize: 2);
        $connection = $pool->acquire();
        try {
            $connection->query('SELECT 1 AS hot');
            $connection->query('SELECT 2 AS cold');
            $connection->query('SELECT 1 AS hot');
            $connection->query('SELECT 3 AS new');

            // Over the simple protocol: a prepared check would take a place in the cache itself.
            $prepared = $connection->command('SELECT statement FROM pg_prepared_statements ORDER BY statement');
            self::assertSame(['SELECT 1 AS hot', 'SELECT 3 AS new'], \array_column($prepared->rows, 'statement'));
        } finally {
            $pool->release($connection);
        }
    }

    public function testACachedStatementIsPreparedAgainWhenTheSchemaChangesItsResult(): void
    {
        $table = $this->createTable('id int');
        $connection = $this->connect();
        $connection->execute("INSERT INTO $table VALUES (1)");
        self::assertSame(['id' => 1], $connection->queryOne("SELECT * FROM $table"));

        $connection->command("ALTER TABLE $table ADD COLUMN name text DEFAULT 'x'");

        self::assertSame(['id' => 1, 'name' => 'x'], $connection->queryOne("SELECT * FROM $table"));
    }

    public function testCachedStatementsRemovedOnTheServerArePreparedAgain(): void
    {
        $connection = $this->connect();
        self::assertSame(1, $connection->queryValue('SELECT $1::int', [1]));

        $connection->command('DEALLOCATE ALL');

        self::assertSame(2, $connection->queryValue('SELECT $1::int', [2]));
    }

    public function testAClosedPoolRefusesWork(): void
    {
        $pool = $this->pool();
        $pool->queryValue('SELECT 1');
        $pool->close();

        self::assertSame(0, $pool->statistics()->open);
        $this->expectException(\Bobbin\Postgres\Exception\PostgresException::class);
        $pool->queryValue('SELECT 1');
    }
}
