<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Postgres;

use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\DeadlockException;
use Bobbin\Postgres\Exception\ForeignKeyViolationException;
use Bobbin\Postgres\Exception\IntegrityConstraintViolationException;
use Bobbin\Postgres\Exception\MultipleStatementsException;
use Bobbin\Postgres\Exception\QueryCancelledException;
use Bobbin\Postgres\Exception\QueryException;
use Bobbin\Postgres\Exception\RetryableException;
use Bobbin\Postgres\Exception\SerializationFailureException;
use Bobbin\Postgres\Exception\UniqueViolationException;
use Bobbin\Postgres\Internal\ErrorFactory;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ErrorClassificationTest extends TestCase
{
    /** @return iterable<string, array{string, class-string}> */
    public static function sqlStates(): iterable
    {
        yield 'unique violation' => ['23505', UniqueViolationException::class];
        yield 'foreign key violation' => ['23503', ForeignKeyViolationException::class];
        yield 'not null violation' => ['23502', IntegrityConstraintViolationException::class];
        yield 'serialization failure' => ['40001', SerializationFailureException::class];
        yield 'deadlock' => ['40P01', DeadlockException::class];
        yield 'query cancelled' => ['57014', QueryCancelledException::class];
        yield 'admin shutdown' => ['57P01', ConnectionLostException::class];
        yield 'connection failure' => ['08006', ConnectionLostException::class];
        yield 'undefined table' => ['42P01', QueryException::class];
    }

    /** @param class-string $class */
    #[DataProvider('sqlStates')]
    public function testEachSqlStateMapsToTheClassCallersActOn(string $sqlState, string $class): void
    {
        $error = ErrorFactory::create($sqlState, 'message', 'the detail', 'the hint', 'the_constraint', 'SELECT 1');

        self::assertSame($class, $error::class);
        self::assertSame($sqlState, $error->sqlState());
        self::assertSame('the detail', $error->detail());
        self::assertSame('the hint', $error->hint());
        self::assertSame('the_constraint', $error->constraint());
        self::assertStringContainsString("SQLSTATE $sqlState", $error->getMessage());
    }

    public function testOnlySerializationFailuresAndDeadlocksAreRetryable(): void
    {
        self::assertInstanceOf(RetryableException::class, ErrorFactory::create('40001', 'm', '', '', '', 'x'));
        self::assertInstanceOf(RetryableException::class, ErrorFactory::create('40P01', 'm', '', '', '', 'x'));
        self::assertNotInstanceOf(RetryableException::class, ErrorFactory::create('23505', 'm', '', '', '', 'x'));
    }

    public function testSeveralStatementsInOneStringGetTheirOwnClearError(): void
    {
        $error = ErrorFactory::create('42601', 'cannot insert multiple commands into a prepared statement', '', '', '', 'SELECT 1; SELECT 2');

        self::assertInstanceOf(MultipleStatementsException::class, $error);
        self::assertStringContainsString('only one statement', $error->getMessage());
    }

    public function testLongStatementsAreShortenedInMessages(): void
    {
        $error = ErrorFactory::create('42601', 'syntax error', '', '', '', 'SELECT ' . \str_repeat('x, ', 200));

        self::assertLessThan(300, \strlen($error->getMessage()));
    }
}
