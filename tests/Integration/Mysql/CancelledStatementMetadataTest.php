<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;

/**
 * With the statement cache and MariaDB's metadata cache, the server leaves out column definitions
 * it believes the client holds. A cancelled execution's definitions are still sent (and drained):
 * the next execution must decode its rows with them, not with what the prepare described.
 */
final class CancelledStatementMetadataTest extends MysqlTestCase
{
    private const SQL = 'SELECT ? AS n, MD5(?) AS h, SLEEP(?) AS z';

    public function testAStatementRunAgainAfterItsFirstExecutionWasCancelledReturnsItsOwnRows(): void
    {
        $connection = $this->connect();
        try {
            $connection->query(self::SQL, [7, 'abc', 2], new TimeoutCancellation(0.1));
            self::fail('the first execution must be cancelled');
        } catch (CancelledException) {
        }

        self::assertSame(['n' => 92, 'h' => \md5('x'), 'z' => 0], $connection->queryOne(self::SQL, [92, 'x', 0]));
        self::assertSame(['n' => 93, 'h' => \md5('y'), 'z' => 0], $connection->queryOne(self::SQL, [93, 'y', 0]), 'and every time after');
    }

    public function testAnArithmeticColumnAfterACancelledFirstExecutionIsItsValueNotReinterpretedBytes(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, n int');
        $connection = $this->connect();
        $connection->execute("INSERT INTO $table VALUES (1, 20)");
        $sql = "SELECT id, n + ? AS total, SLEEP(?) AS z FROM $table";
        try {
            $connection->query($sql, [5, 2], new TimeoutCancellation(0.1));
            self::fail('the first execution must be cancelled');
        } catch (CancelledException) {
        }

        self::assertSame([['id' => 1, 'total' => 25, 'z' => 0]], $connection->queryAll($sql, [5, 0]));
    }

    public function testABurstWithEveryTenthStatementCancelledGivesEveryOtherCallerExactlyItsRow(): void
    {
        $pool = $this->pool(maxSize: 10);
        $fibers = [];
        for ($i = 0; $i < 1000; $i++) {
            $fibers[$i] = Async::run(static function () use ($pool, $i): mixed {
                try {
                    if ($i % 10 === 0) {
                        $pool->query(self::SQL, [$i, "v$i", 1], new TimeoutCancellation(0.1));

                        return 'not cancelled';
                    }

                    return $pool->queryOne(self::SQL, [$i, "v$i", 0]);
                } catch (CancelledException | OutcomeUnknown) {
                    // Not done, or (the kill not confirmed within a second, under this load) unknown.
                    return null;
                } catch (\Throwable $e) {
                    return $e::class . ': ' . $e->getMessage();
                }
            });
        }

        $wrong = [];
        foreach ($fibers as $i => $fiber) {
            $row = $fiber->await();
            if ($row !== ($i % 10 === 0 ? null : ['n' => $i, 'h' => \md5("v$i"), 'z' => 0])) {
                $wrong[$i] = $row;
            }
        }
        self::assertSame([], \array_slice($wrong, 0, 3, true), \sprintf('%d of 1,000 callers got another answer', \count($wrong)));
        self::assertSame(0, $pool->statistics()->discarded, 'every cancelled connection was drained and reused');
    }
}
