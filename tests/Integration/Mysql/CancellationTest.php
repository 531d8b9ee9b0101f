<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Mysql\ConnectionState;
use Bobbin\Mysql\Exception\QueryTimeoutException;

/** A cancelled or timed-out statement is killed on the server, and its connection comes back idle. */
final class CancellationTest extends MysqlTestCase
{
    public function testACancelledFibersSleepIsGoneFromTheProcessListWithinASecond(): void
    {
        $pool = $this->pool(maxSize: 2);
        $source = new CancellationSource();
        $fiber = Async::run(static fn () => $pool->query('SELECT SLEEP(10) AS bobbin_cancel_me', [], $source->token()));
        Async::delay(0.3);
        self::assertSame(1, self::sessionsRunning('%bobbin_cancel_me%'));
        $cancelled = \microtime(true);
        $source->cancel();

        try {
            $fiber->await();
            self::fail('the caller must get the cancellation');
        } catch (CancelledException) {
        }
        self::assertLessThan(0.1, \microtime(true) - $cancelled, 'the caller gets its exception at once');
        while (self::sessionsRunning('%bobbin_cancel_me%') > 0) {
            self::assertLessThan(1.0, \microtime(true) - $cancelled, 'SLEEP(10) still runs on the server');
            Async::delay(0.05);
        }
        self::assertSame(7, $pool->queryValue('SELECT 7'), 'the pool goes on');
        self::assertSame(0, $pool->statistics()->discarded, 'the connection was drained, not thrown away');
    }

    public function testTheQueryTimeoutKillsTheStatementAndNamesIt(): void
    {
        $connection = $this->connect(self::config(queryTimeout: 0.3));
        $started = \microtime(true);
        try {
            $connection->query('SELECT SLEEP(5) AS slow_one');
            self::fail('the statement must time out');
        } catch (QueryTimeoutException $e) {
            self::assertStringContainsString('0.300 s', $e->getMessage());
            self::assertStringContainsString('slow_one', $e->getMessage());
        }
        self::assertLessThan(1.0, \microtime(true) - $started);
        // Called from {main}: the kill went out before the exception, and while it did the loop may have finished the drain.
        self::assertContains($connection->state(), [ConnectionState::Draining, ConnectionState::Idle]);
        self::assertSame(2, $connection->queryValue('SELECT 2'), 'the next statement waits for the clean-up, then runs');
        self::assertLessThan(2.0, \microtime(true) - $started, 'the statement was killed, not waited out');
    }

    public function testACancelledWaitForAConnectionThrowsTheCancellation(): void
    {
        $pool = $this->pool(maxSize: 1);
        $held = $pool->acquire();
        try {
            $pool->query('SELECT 1', [], new TimeoutCancellation(0.1));
            self::fail('the wait must end');
        } catch (CancelledException) {
        } finally {
            $pool->release($held);
        }
        self::assertSame(0, $pool->statistics()->waiting);
    }

    public function testAPoolFullOfCancelledStatementsKillsThemOverAConnectionOfItsOwn(): void
    {
        $pool = $this->pool(maxSize: 3);
        $source = new CancellationSource();
        $fibers = [];
        for ($i = 0; $i < 3; $i++) {
            $fibers[] = Async::run(static fn () => $pool->query('SELECT SLEEP(10) AS bobbin_full_pool', [], $source->token()));
        }
        Async::delay(0.3);
        $source->cancel();
        $started = \microtime(true);
        foreach ($fibers as $fiber) {
            try {
                $fiber->await();
            } catch (CancelledException | OutcomeUnknown) {
                // Killed, or (its kill still queued behind the others past a second) unknown.
            }
        }
        while (self::sessionsRunning('%bobbin_full_pool%') > 0) {
            self::assertLessThan(2.0, \microtime(true) - $started);
            Async::delay(0.05);
        }
        self::assertSame([1, 1, 1], [$pool->queryValue('SELECT 1'), $pool->queryValue('SELECT 1'), $pool->queryValue('SELECT 1')]);
        self::assertSame(3, $pool->statistics()->open);
    }

    public function testACancellationWhileALargeStatementIsStillBeingSentLeavesNothingHanging(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, data longblob');
        $pool = $this->pool(maxSize: 1);
        $started = \microtime(true);
        try {
            $pool->execute("INSERT INTO $table VALUES (1, ?)", [\str_repeat('x', 40 * 1024 * 1024)], new TimeoutCancellation(0.001));
        } catch (CancelledException) {
        }

        self::assertSame(1, $pool->queryValue('SELECT 1'), 'the pool goes on (the half-sent session closed, or drained)');
        self::assertLessThan(5.0, \microtime(true) - $started);
        self::assertSame(0, $pool->statistics()->inUse);
    }

    public function testWithoutAStatementCacheACancelledStatementIsStillClosedOnTheServer(): void
    {
        $connection = $this->connect(self::config(statementCacheSize: 0));
        $counts = static function () use ($connection): array {
            $rows = $connection->command("SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_close')")->rows;

            return \array_column($rows, 'Value', 'Variable_name');
        };
        $before = $counts();
        try {
            $connection->query('SELECT SLEEP(?) AS bobbin_uncached', [5], new TimeoutCancellation(0.2));
            self::fail('the statement must be cancelled');
        } catch (CancelledException | OutcomeUnknown) {
            // Either way (the kill confirmed or not yet), the statement must not stay behind.
        }
        $after = $counts(); // the pending COM_STMT_CLOSE goes out in front of this command

        self::assertSame(1, $after['Com_stmt_prepare'] - $before['Com_stmt_prepare']);
        self::assertSame(1, $after['Com_stmt_close'] - $before['Com_stmt_close'], 'no statement left behind on the server');
    }
}
