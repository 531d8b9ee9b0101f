<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Postgres\Exception\QueryException;
use Bobbin\Postgres\Exception\TransactionException;
use Bobbin\Postgres\Exception\UniqueViolationException;
use Bobbin\Postgres\IsolationLevel;
use Bobbin\Postgres\Transaction;

final class TransactionTest extends PostgresTestCase
{
    public function testReturningFromTheCallbackCommits(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool();

        $result = $pool->transaction(static function (Transaction $tx) use ($table): string {
            $tx->execute("INSERT INTO $table VALUES (1), (2)");

            return 'done';
        });

        self::assertSame('done', $result);
        self::assertSame(2, $pool->queryValue("SELECT count(*) FROM $table"));
    }

    public function testAnExceptionRollsBackAndIsRethrown(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool();
        $error = new \DomainException('business rule');

        try {
            $pool->transaction(static function (Transaction $tx) use ($table, $error): void {
                $tx->execute("INSERT INTO $table VALUES (1)");
                throw $error;
            });
            self::fail('The exception must be rethrown');
        } catch (\DomainException $e) {
            self::assertSame($error, $e);
        }

        self::assertSame(0, $pool->queryValue("SELECT count(*) FROM $table"));
        self::assertSame(1, $pool->statistics()->idle, 'the connection goes back to the pool, out of the transaction');
    }

    public function testStatementsOutsideTheTransactionDoNotSeeUncommittedRows(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 2);

        $pool->transaction(static function (Transaction $tx) use ($table, $pool): void {
            $tx->execute("INSERT INTO $table VALUES (1)");
            self::assertSame(1, $tx->queryValue("SELECT count(*) FROM $table"));
            self::assertSame(0, $pool->queryValue("SELECT count(*) FROM $table"));
        });

        self::assertSame(1, $pool->queryValue("SELECT count(*) FROM $table"));
    }

    public function testNestedTransactionsAreSavepoints(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $connection = $this->connect();

        $connection->transaction(static function (Transaction $tx) use ($table): void {
            $tx->execute("INSERT INTO $table VALUES (1)");
            try {
                $tx->transaction(static function (Transaction $inner) use ($table): void {
                    $inner->execute("INSERT INTO $table VALUES (2)");
                    $inner->execute("INSERT INTO $table VALUES (1)"); // duplicate: fails the savepoint
                });
                self::fail('The duplicate must throw');
            } catch (UniqueViolationException) {
                // The outer transaction goes on.
            }
            $tx->transaction(static function (Transaction $inner) use ($table): void {
                $inner->execute("INSERT INTO $table VALUES (3)");
                $inner->transaction(static fn (Transaction $deeper) => $deeper->execute("INSERT INTO $table VALUES (4)"));
            });
        });

        self::assertSame([1, 3, 4], \array_column($connection->queryAll("SELECT id FROM $table ORDER BY id"), 'id'));
        self::assertFalse($connection->inTransaction());
    }

    public function testTheIsolationLevelIsApplied(): void
    {
        $level = $this->pool()->transaction(
            static fn (Transaction $tx) => $tx->queryValue('SHOW transaction_isolation'),
            IsolationLevel::RepeatableRead,
        );

        self::assertSame('repeatable read', $level);
    }

    public function testATransactionCannotBeUsedAfterItsCallback(): void
    {
        $leaked = $this->pool()->transaction(static fn (Transaction $tx) => $tx);

        self::assertFalse($leaked->isActive());
        $this->expectException(TransactionException::class);
        $leaked->query('SELECT 1');
    }

    public function testACaughtStatementErrorMakesTheCommitFailLoudly(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool();

        try {
            $pool->transaction(static function (Transaction $tx) use ($table): void {
                $tx->execute("INSERT INTO $table VALUES (1)");
                try {
                    $tx->query('SELECT 1/0');
                } catch (QueryException) {
                    // Swallowed by mistake: PostgreSQL has aborted the transaction anyway.
                }
            });
            self::fail('Committing an aborted transaction must throw');
        } catch (TransactionException $e) {
            self::assertStringContainsString('rolled back', $e->getMessage());
        }
        self::assertSame(0, $pool->queryValue("SELECT count(*) FROM $table"));
    }

    public function testACancelledTransactionRollsBackAndItsConnectionIsReused(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $pool = $this->pool(maxSize: 1);
        $source = new CancellationSource();
        Async::run(static function () use ($source): void {
            Async::delay(0.3);
            $source->cancel();
        });

        try {
            $pool->transaction(static function (Transaction $tx) use ($table, $source): void {
                $tx->execute("INSERT INTO $table VALUES (1)", [], $source);
                $tx->query('SELECT pg_sleep(10)', [], $source);
            }, null, $source);
            self::fail('The cancellation must end the transaction');
        } catch (CancelledException) {
            // Expected.
        }

        $started = \microtime(true);
        self::assertSame(0, $pool->queryValue("SELECT count(*) FROM $table"));
        self::assertLessThan(3.0, \microtime(true) - $started);
        self::assertSame(1, $pool->statistics()->open);
    }
}
