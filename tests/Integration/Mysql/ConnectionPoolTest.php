<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\PoolTimeoutException;
use Bobbin\Mysql\Exception\QueryException;
use Bobbin\Tests\Support\Async\BusyLoop;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

final class ConnectionPoolTest extends MysqlTestCase
{
    public function testTwoHundredFibersShareTenConnectionsAndAllFinish(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, fiber int NOT NULL');
        $pool = $this->pool(maxSize: 10, acquireTimeout: 20.0);
        $futures = [];
        for ($i = 0; $i < 200; $i++) {
            $futures[] = Async::run(static function () use ($pool, $table, $i): int {
                $pool->execute("INSERT INTO $table VALUES (?, ?)", [$i, $i]);
                $pool->queryValue('SELECT SLEEP(0.005)');

                return (int) $pool->queryValue("SELECT fiber FROM $table WHERE id = ?", [$i]);
            });
        }

        self::assertSame(\range(0, 199), Future::awaitAll($futures));
        $stats = $pool->statistics();
        self::assertSame(10, $stats->open, 'the pool grew to its max size and no further');
        self::assertSame(10, $stats->idle, 'no connection leaked');
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
        try {
            $pool->query('SELECT 1');
            self::fail('The wait must time out');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('0.300 s', $e->getMessage());
        } finally {
            $pool->release($held);
        }
        self::assertSame(1, $pool->queryValue('SELECT 1'));
    }

    public function testADirtySessionIsCleanForTheNextBorrower(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 1);
        $connection = $pool->acquire();
        $id = $connection->connectionId();
        $connection->command('SET @leak = 42');
        $connection->command("SET SESSION sql_mode = 'ANSI_QUOTES'");
        $connection->command('CREATE TEMPORARY TABLE leaked (x int)');
        $connection->command('START TRANSACTION');
        $connection->execute("INSERT INTO $table VALUES (?)", [1]);
        $pool->release($connection);

        $next = $pool->acquire();
        try {
            self::assertSame($id, $next->connectionId(), 'the same session, reset rather than replaced');
            self::assertNull($next->queryValue('SELECT @leak'));
            self::assertStringNotContainsString('ANSI_QUOTES', (string) $next->queryValue('SELECT @@sql_mode'));
            try {
                $next->command('SELECT * FROM leaked');
                self::fail('the temporary table must be gone');
            } catch (QueryException $e) {
                self::assertSame(1146, $e->errorCode());
            }
            self::assertFalse($next->inTransaction());
            self::assertSame(0, $next->queryValue("SELECT COUNT(*) FROM $table"), 'the open transaction was rolled back');
            self::assertFalse($next->sessionStateChanged());
        } finally {
            $pool->release($next);
        }
    }

    public function testACleanSessionIsNotResetAndKeepsItsStatements(): void
    {
        $pool = $this->pool(maxSize: 1);
        $pool->queryValue('SELECT ? + 1', [1]);
        $connection = $pool->acquire();
        try {
            self::assertSame(1, $connection->cachedStatements());
        } finally {
            $pool->release($connection);
        }
    }

    public function testAKilledIdleConnectionIsReplacedWithoutAnError(): void
    {
        $pool = $this->pool(maxSize: 2);
        $id = $pool->queryValue('SELECT CONNECTION_ID()');
        EmbeddedMysql::client("KILL $id");
        \usleep(50_000);

        self::assertNotSame($id, $pool->queryValue('SELECT CONNECTION_ID()'));
        self::assertSame(1, $pool->statistics()->discarded);
        self::assertSame(1, $pool->statistics()->open);
    }

    public function testAConnectionKilledWhileTheLoopPolledIsReplacedWithoutAnError(): void
    {
        $pool = $this->pool(maxSize: 2);
        BusyLoop::during(static function () use ($pool): void {
            $id = $pool->queryValue('SELECT CONNECTION_ID()');
            Async::delay(0.01); // polls made while the connection is idle and quiet
            EmbeddedMysql::client("KILL $id");
            // Polls that see the end of the stream arrive, which nobody waits for: the checkout
            // must not take the earlier polls' word that the socket is quiet.
            Async::delay(0.05);

            self::assertNotSame($id, $pool->queryValue('SELECT CONNECTION_ID()'));
            self::assertSame(1, $pool->statistics()->discarded);
            self::assertSame(1, $pool->queryValue('SELECT 1'), 'a connection the loop found quiet just now is taken as it is');
        });
    }

    public function testKillingAConnectionInUseGivesConnectionLostAndThePoolRecovers(): void
    {
        $pool = $this->pool(maxSize: 2);
        $connection = $pool->acquire();
        $id = $connection->connectionId();
        $pool->release($connection);
        Async::run(static function () use ($id): void {
            Async::delay(0.2);
            EmbeddedMysql::client("KILL $id");
        });

        try {
            $pool->query('SELECT SLEEP(5)');
            self::fail('the connection was killed');
        } catch (ConnectionLostException) {
        }
        self::assertSame(0, $pool->statistics()->open);
        self::assertSame(1, $pool->queryValue('SELECT 1'));
    }

    public function testAConnectionIdleLongerThanCheckAfterIdleIsPingedFirst(): void
    {
        $pool = $this->pool(maxSize: 1, checkAfterIdle: 0.0);
        $first = $pool->queryValue('SELECT CONNECTION_ID()');
        \usleep(10_000);

        self::assertSame($first, $pool->queryValue('SELECT CONNECTION_ID()'));
    }

    public function testAConnectionClosedByWaitTimeoutIsReplacedUnseen(): void
    {
        $previous = EmbeddedMysql::client('SELECT @@GLOBAL.wait_timeout');
        EmbeddedMysql::client('SET GLOBAL wait_timeout = 1');
        try {
            $pool = $this->pool(maxSize: 1, checkAfterIdle: 60.0);
            $first = $pool->queryValue('SELECT CONNECTION_ID()');
            Async::delay(2.5); // the server closes the idle session after 1 s

            self::assertNotSame($first, $pool->queryValue('SELECT CONNECTION_ID()'), 'no error, a new session');
            self::assertSame(1, $pool->statistics()->discarded);
        } finally {
            EmbeddedMysql::client("SET GLOBAL wait_timeout = $previous");
        }
    }
}
