<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Async\Async;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\DeadlockException;
use Bobbin\Mysql\Exception\ForeignKeyViolationException;
use Bobbin\Mysql\Exception\IntegrityConstraintViolationException;
use Bobbin\Mysql\Exception\LockWaitTimeoutException;
use Bobbin\Mysql\Exception\MultipleStatementsException;
use Bobbin\Mysql\Exception\QueryCancelledException;
use Bobbin\Mysql\Exception\QueryException;
use Bobbin\Mysql\Exception\RetryableException;
use Bobbin\Mysql\Exception\UniqueViolationException;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** The server's errors as the classes callers act on, each one provoked for real. */
final class ErrorMappingTest extends MysqlTestCase
{
    public function testADuplicateKeyIsAUniqueViolation(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $connection = $this->connect();
        $connection->execute("INSERT INTO $table VALUES (?)", [1]);
        try {
            $connection->execute("INSERT INTO $table VALUES (?)", [1]);
            self::fail('the duplicate must be refused');
        } catch (UniqueViolationException $e) {
            self::assertSame(1062, $e->errorCode());
            self::assertSame('23000', $e->sqlState());
            self::assertStringContainsString("Duplicate entry '1'", $e->getMessage());
        }
        self::assertSame(1, $connection->queryValue('SELECT 1'), 'the connection goes on');
    }

    public function testAMissingParentRowIsAForeignKeyViolation(): void
    {
        $parent = $this->createTable('id int PRIMARY KEY');
        $child = $this->createTable("id int PRIMARY KEY, parent int, FOREIGN KEY (parent) REFERENCES $parent (id)");

        $this->expectException(ForeignKeyViolationException::class);
        $this->connect()->execute("INSERT INTO $child VALUES (1, ?)", [99]);
    }

    public function testANullInANotNullColumnIsAnIntegrityViolation(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, v int NOT NULL');

        $this->expectException(IntegrityConstraintViolationException::class);
        $this->connect()->execute("INSERT INTO $table VALUES (1, ?)", [null]);
    }

    public function testASyntaxErrorIsAQueryExceptionNamingTheStatement(): void
    {
        $this->expectException(QueryException::class);
        $this->expectExceptionMessage('SELEC 1');
        $this->connect()->query('SELEC 1');
    }

    public function testTwoStatementsInOneStringAreRefusedInBothProtocols(): void
    {
        $connection = $this->connect();
        foreach ([fn () => $connection->query('SELECT 1; SELECT 2'), fn () => $connection->command('SELECT 1; SELECT 2')] as $run) {
            try {
                $run();
                self::fail('two statements must be refused');
            } catch (MultipleStatementsException $e) {
                self::assertStringContainsString('only one statement', $e->getMessage());
            }
        }
    }

    public function testMultipleStatementsRunWhenTheSettingsAllowThem(): void
    {
        $result = $this->connect(self::config(allowMultipleStatements: true))->command('SELECT 1 AS a; SELECT 2 AS b');

        self::assertSame([['a' => 1]], $result->rows);
        self::assertSame([['b' => 2]], $result->moreResults[0]->rows);
    }

    public function testADeadlockIsRetryable(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, v int');
        EmbeddedMysql::client("INSERT INTO $table VALUES (1, 0), (2, 0)");
        $a = $this->connect();
        $b = $this->connect();
        $a->command('START TRANSACTION');
        $b->command('START TRANSACTION');
        $a->execute("UPDATE $table SET v = 1 WHERE id = ?", [1]);
        $b->execute("UPDATE $table SET v = 1 WHERE id = ?", [2]);
        $first = Async::run(static fn () => $a->execute("UPDATE $table SET v = 2 WHERE id = ?", [2]));
        Async::delay(0.1);
        $errors = [];
        try {
            $b->execute("UPDATE $table SET v = 2 WHERE id = ?", [1]);
        } catch (DeadlockException $e) {
            $errors[] = $e;
        }
        try {
            $first->await();
        } catch (DeadlockException $e) {
            $errors[] = $e;
        }

        self::assertCount(1, $errors, 'exactly one victim');
        self::assertInstanceOf(RetryableException::class, $errors[0]);
        self::assertSame(1213, $errors[0]->errorCode());
    }

    public function testALockWaitTimeoutIsRetryable(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        EmbeddedMysql::client("INSERT INTO $table VALUES (1)");
        $holder = $this->connect();
        $waiter = $this->connect();
        $holder->command('START TRANSACTION');
        $holder->execute("SELECT * FROM $table WHERE id = ? FOR UPDATE", [1]);
        $waiter->command('SET SESSION innodb_lock_wait_timeout = 1');

        try {
            $waiter->execute("UPDATE $table SET id = 2 WHERE id = ?", [1]);
            self::fail('the lock must not be granted');
        } catch (LockWaitTimeoutException $e) {
            self::assertInstanceOf(RetryableException::class, $e);
        }
    }

    public function testAQueryKilledByAnotherSessionIsQueryCancelled(): void
    {
        $connection = $this->connect();
        $id = $connection->connectionId();
        Async::run(static function () use ($id): void {
            Async::delay(0.2);
            EmbeddedMysql::client("KILL QUERY $id");
        });

        try {
            // SLEEP() and BENCHMARK() end quietly when killed; a scan gets the error.
            $connection->query('SELECT SUM(seq) FROM seq_1_to_10000000000 WHERE seq > ?', [0]);
            self::fail('the statement must be interrupted');
        } catch (QueryCancelledException $e) {
            self::assertSame(1317, $e->errorCode());
        }
        self::assertSame(1, $connection->queryValue('SELECT 1'), 'the session goes on');
    }

    public function testAKilledConnectionInUseIsConnectionLostAndClosed(): void
    {
        $connection = $this->connect();
        $id = $connection->connectionId();
        Async::run(static function () use ($id): void {
            Async::delay(0.2);
            EmbeddedMysql::client("KILL $id");
        });

        try {
            $connection->query('SELECT SLEEP(5)');
            self::fail('the connection is gone');
        } catch (ConnectionLostException) {
        }
        self::assertTrue($connection->isClosed());
        $this->expectException(ConnectionLostException::class);
        $connection->query('SELECT 1');
    }

    public function testNoPhpWarningEscapesFromABrokenSocket(): void
    {
        $connection = $this->connect();
        EmbeddedMysql::client('KILL ' . $connection->connectionId());
        \usleep(50_000);

        self::assertFalse($connection->isAlive());
        $this->expectException(ConnectionLostException::class);
        $connection->query('SELECT 1');
    }
}
