<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Mysql\Exception\DeadlockException;
use Bobbin\Mysql\Exception\TransactionException;
use Bobbin\Mysql\IsolationLevel;
use Bobbin\Mysql\Transaction;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

final class TransactionTest extends MysqlTestCase
{
    public function testReturningCommits(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $value = $this->pool()->transaction(static function (Transaction $tx) use ($table): string {
            $tx->execute("INSERT INTO $table VALUES (?)", [1]);

            return 'done';
        });

        self::assertSame('done', $value);
        self::assertSame('1', EmbeddedMysql::client("SELECT COUNT(*) FROM $table"));
    }

    public function testThrowingRollsBackAndRethrows(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 1);
        try {
            $pool->transaction(static function (Transaction $tx) use ($table): void {
                $tx->execute("INSERT INTO $table VALUES (?)", [1]);
                throw new \DomainException('no');
            });
            self::fail('the exception must come through');
        } catch (\DomainException $e) {
            self::assertSame('no', $e->getMessage());
        }

        self::assertSame(0, $pool->queryValue("SELECT COUNT(*) FROM $table"));
        self::assertSame(1, $pool->statistics()->open, 'the connection was rolled back, not thrown away');
    }

    public function testANestedTransactionIsASavepointThatRollsBackAlone(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $this->pool()->transaction(static function (Transaction $tx) use ($table): void {
            $tx->execute("INSERT INTO $table VALUES (?)", [1]);
            try {
                $tx->transaction(static function (Transaction $inner) use ($table): void {
                    $inner->execute("INSERT INTO $table VALUES (?)", [2]);
                    throw new \RuntimeException('inner fails');
                });
            } catch (\RuntimeException) {
            }
            $tx->transaction(static fn (Transaction $inner) => $inner->execute("INSERT INTO $table VALUES (?)", [3]));
        });

        self::assertSame("1\n3", EmbeddedMysql::client("SELECT id FROM $table ORDER BY id"));
    }

    public function testTheIsolationLevelIsChosenForTheTransaction(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 1);
        $levelOf = static function (Transaction $tx) use ($table): mixed {
            $tx->queryAll("SELECT * FROM $table"); // InnoDB starts the transaction at its first read
            return $tx->queryValue('SELECT trx_isolation_level FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()');
        };

        self::assertSame('SERIALIZABLE', $pool->transaction($levelOf, IsolationLevel::Serializable));
        Async::delay(0.15); // INNODB_TRX is a cache refreshed at most every 0.1 s
        self::assertSame('REPEATABLE READ', $pool->transaction($levelOf), 'only that transaction');
    }

    public function testATransactionUsedAfterItsCallbackRefuses(): void
    {
        $kept = null;
        $this->pool()->transaction(static function (Transaction $tx) use (&$kept): void {
            $kept = $tx;
        });

        $this->expectException(TransactionException::class);
        $kept?->query('SELECT 1');
    }

    public function testACaughtDeadlockMakesTheCommitFailInsteadOfCommittingHalf(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, v int');
        EmbeddedMysql::client("INSERT INTO $table VALUES (1, 0), (2, 0)");
        $pool = $this->pool(maxSize: 3);
        $other = $pool->acquire();
        $started = false;
        try {
            $pool->transaction(static function (Transaction $tx) use ($table, $other, &$started): void {
                $tx->execute("UPDATE $table SET v = 1 WHERE id = ?", [1]);
                $other->command('START TRANSACTION');
                $other->execute("UPDATE $table SET v = 1 WHERE id = ?", [2]);
                $blocked = Async::run(static fn () => $other->execute("UPDATE $table SET v = 1 WHERE id = ?", [1]));
                Async::delay(0.1);
                try {
                    $tx->execute("UPDATE $table SET v = 2 WHERE id = ?", [2]);
                } catch (DeadlockException) {
                    $started = true; // swallowed: the mistake this protects against
                }
                $blocked->await();
                $other->command('COMMIT');
                $tx->execute("UPDATE $table SET v = 9 WHERE id = ?", [2]);
            });
            self::fail('the commit must fail');
        } catch (TransactionException $e) {
            self::assertStringContainsString('rolled the transaction back', $e->getMessage());
        } finally {
            $pool->release($other);
        }
        self::assertTrue($started);
    }

    public function testACancelledStatementRollsTheTransactionBack(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 2);
        $source = new CancellationSource();
        Async::run(static function () use ($source): void {
            Async::delay(0.2);
            $source->cancel();
        });
        try {
            $pool->transaction(static function (Transaction $tx) use ($table, $source): void {
                $tx->execute("INSERT INTO $table VALUES (?)", [1]);
                $tx->query('SELECT SLEEP(5)', [], $source->token());
            });
            self::fail('the cancellation must come through');
        } catch (CancelledException) {
        }

        self::assertSame(0, $pool->queryValue("SELECT COUNT(*) FROM $table"));
    }
}
