<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Postgres\Exception\DeadlockException;
use Bobbin\Postgres\Exception\ForeignKeyViolationException;
use Bobbin\Postgres\Exception\IntegrityConstraintViolationException;
use Bobbin\Postgres\Exception\MultipleStatementsException;
use Bobbin\Postgres\Exception\QueryCancelledException;
use Bobbin\Postgres\Exception\QueryException;
use Bobbin\Postgres\Exception\RetryableException;
use Bobbin\Postgres\Exception\SerializationFailureException;
use Bobbin\Postgres\Exception\UniqueViolationException;
use Bobbin\Postgres\IsolationLevel;
use Bobbin\Postgres\Transaction;
use Bobbin\Tests\Support\EmbeddedPostgres;

final class ErrorMappingTest extends PostgresTestCase
{
    public function testASyntaxErrorCarriesItsSqlStateAndMessage(): void
    {
        try {
            $this->connect()->query('SELEC 1');
            self::fail('A syntax error must throw');
        } catch (QueryException $e) {
            self::assertSame(QueryException::class, $e::class);
            self::assertSame('42601', $e->sqlState());
            self::assertStringContainsString('syntax error at or near "SELEC"', $e->getMessage());
        }
    }

    public function testAUniqueViolationNamesItsConstraintAndDetail(): void
    {
        $table = $this->createTable('id int CONSTRAINT pgtest_pk PRIMARY KEY');
        $connection = $this->connect();
        $connection->execute("INSERT INTO $table VALUES (1)");
        try {
            $connection->execute("INSERT INTO $table VALUES (\$1)", [1]);
            self::fail('A duplicate key must throw');
        } catch (UniqueViolationException $e) {
            self::assertSame('23505', $e->sqlState());
            self::assertSame('pgtest_pk', $e->constraint());
            self::assertSame('Key (id)=(1) already exists.', $e->detail());
        }
    }

    public function testAForeignKeyViolationHasItsOwnClass(): void
    {
        $parent = $this->createTable('id int PRIMARY KEY');
        $child = $this->createTable("id int PRIMARY KEY, parent int CONSTRAINT pgtest_fk REFERENCES $parent(id)");

        try {
            $this->connect()->execute("INSERT INTO $child VALUES (1, 99)");
            self::fail('A missing parent must throw');
        } catch (ForeignKeyViolationException $e) {
            self::assertSame('23503', $e->sqlState());
            self::assertSame('pgtest_fk', $e->constraint());
            self::assertStringContainsString('is not present in table', $e->detail());
        }
    }

    public function testOtherConstraintViolationsShareTheIntegrityClass(): void
    {
        $table = $this->createTable('id int NOT NULL');

        $this->expectException(IntegrityConstraintViolationException::class);
        $this->connect()->execute("INSERT INTO $table VALUES (NULL)");
    }

    public function testErrorsCarryTheHintPostgresSends(): void
    {
        try {
            $this->connect()->query('SELECT length(1)');
            self::fail('An unknown function must throw');
        } catch (QueryException $e) {
            self::assertSame('42883', $e->sqlState());
            self::assertStringContainsString('explicit type casts', $e->hint());
        }
    }

    public function testMoreThanOneStatementIsRejectedWithAClearError(): void
    {
        $table = $this->createTable('id int');
        $connection = $this->connect();
        try {
            $connection->execute("INSERT INTO $table VALUES (1); DELETE FROM $table");
            self::fail('Two statements in one string must be rejected');
        } catch (MultipleStatementsException $e) {
            self::assertStringContainsString('only one statement', $e->getMessage());
        }
        self::assertSame(0, $connection->queryValue("SELECT count(*) FROM $table"));
    }

    public function testTheConnectionStaysUsableAfterAnError(): void
    {
        $connection = $this->connect();
        try {
            $connection->query('SELECT 1/0');
        } catch (QueryException $e) {
            self::assertSame('22012', $e->sqlState());
        }

        self::assertSame(2, $connection->queryValue('SELECT 2'));
    }

    public function testAStatementCancelledByAnotherSessionThrowsQueryCancelled(): void
    {
        $connection = $this->connect();
        $pid = $connection->pid();
        $canceller = Async::run(static function () use ($pid): void {
            Async::delay(0.3);
            EmbeddedPostgres::psql("SELECT pg_cancel_backend($pid)");
        });
        try {
            $connection->query('SELECT pg_sleep(10)');
            self::fail('The cancelled statement must throw');
        } catch (QueryCancelledException $e) {
            self::assertSame('57014', $e->sqlState());
        }
        $canceller->await();
        self::assertSame(1, $connection->queryValue('SELECT 1'));
    }

    public function testConcurrentSerializableUpdatesRaiseARetryableSerializationFailure(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, n int');
        EmbeddedPostgres::psql("INSERT INTO $table VALUES (1, 0)");
        $pool = $this->pool(maxSize: 2);
        $bothRead = 0;
        $work = static function (Transaction $tx) use ($table, &$bothRead): void {
            $tx->queryValue("SELECT n FROM $table WHERE id = 1");
            $bothRead++;
            while ($bothRead < 2) {
                Async::delay(0.01);
            }
            $tx->execute("UPDATE $table SET n = n + 1 WHERE id = 1");
        };
        $futures = [
            Async::run(static fn () => $pool->transaction($work, IsolationLevel::Serializable)),
            Async::run(static fn () => $pool->transaction($work, IsolationLevel::Serializable)),
        ];
        $failures = [];
        foreach ($futures as $future) {
            try {
                $future->await();
            } catch (SerializationFailureException $e) {
                $failures[] = $e;
            }
        }

        self::assertCount(1, $failures);
        self::assertInstanceOf(RetryableException::class, $failures[0]);
        self::assertSame('40001', $failures[0]->sqlState());
        self::assertSame(1, $pool->queryValue("SELECT n FROM $table WHERE id = 1"));
    }

    public function testADeadlockRaisesARetryableDeadlockException(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, n int');
        EmbeddedPostgres::psql("INSERT INTO $table VALUES (1, 0), (2, 0)");
        $pool = $this->pool(maxSize: 2);
        $locked = 0;
        $work = static function (int $first, int $second) use ($table, &$locked): \Closure {
            return static function (Transaction $tx) use ($table, $first, $second, &$locked): void {
                $tx->execute("UPDATE $table SET n = n + 1 WHERE id = \$1", [$first]);
                $locked++;
                while ($locked < 2) {
                    Async::delay(0.01);
                }
                $tx->execute("UPDATE $table SET n = n + 1 WHERE id = \$1", [$second]);
            };
        };
        $futures = [
            Async::run(static fn () => $pool->transaction($work(1, 2))),
            Async::run(static fn () => $pool->transaction($work(2, 1))),
        ];
        $failures = [];
        foreach ($futures as $future) {
            try {
                $future->await();
            } catch (DeadlockException $e) {
                $failures[] = $e;
            }
        }

        self::assertCount(1, $failures);
        self::assertInstanceOf(RetryableException::class, $failures[0]);
        self::assertSame('40P01', $failures[0]->sqlState());
        self::assertSame(2, $pool->queryValue("SELECT sum(n)::int FROM $table"));
    }
}
