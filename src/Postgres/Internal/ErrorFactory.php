<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\DeadlockException;
use Bobbin\Postgres\Exception\ForeignKeyViolationException;
use Bobbin\Postgres\Exception\IntegrityConstraintViolationException;
use Bobbin\Postgres\Exception\MultipleStatementsException;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Exception\QueryCancelledException;
use Bobbin\Postgres\Exception\QueryException;
use Bobbin\Postgres\Exception\SerializationFailureException;
use Bobbin\Postgres\Exception\UniqueViolationException;
use PgSql\Result as PgResult;

/**
 * Maps a failed result to the exception class callers act on, by SQLSTATE.
 *
 * @internal
 */
final class ErrorFactory
{
    public static function fromResult(PgResult $result, string $sql): PostgresException
    {
        $field = static fn (int $code): string => (string) \pg_result_error_field($result, $code);
        $sqlState = $field(\PGSQL_DIAG_SQLSTATE);
        $primary = $field(\PGSQL_DIAG_MESSAGE_PRIMARY);
        if ($primary === '') {
            $primary = \trim((string) \pg_result_error($result));
        }

        return self::create($sqlState, $primary, $field(\PGSQL_DIAG_MESSAGE_DETAIL), $field(\PGSQL_DIAG_MESSAGE_HINT), $field(\PGSQL_DIAG_CONSTRAINT_NAME), $sql);
    }

    public static function create(string $sqlState, string $primary, string $detail, string $hint, string $constraint, string $sql): PostgresException
    {
        $message = \sprintf('%s (SQLSTATE %s) in: %s', $primary, $sqlState, self::shorten($sql));
        if ($sqlState === '42601' && \str_contains($primary, 'multiple commands')) {
            return new MultipleStatementsException(
                'A query string may hold only one statement (send them one at a time, e.g. inside a transaction): ' . $message,
                $sqlState,
                $detail,
                $hint,
                $constraint,
            );
        }

        $class = match (true) {
            $sqlState === '23505' => UniqueViolationException::class,
            $sqlState === '23503' => ForeignKeyViolationException::class,
            \str_starts_with($sqlState, '23') => IntegrityConstraintViolationException::class,
            $sqlState === '40001' => SerializationFailureException::class,
            $sqlState === '40P01' => DeadlockException::class,
            $sqlState === '57014' => QueryCancelledException::class,
            // Class 08 (connection exception) and 57P01-57P03 (admin/crash shutdown): the session is gone.
            \str_starts_with($sqlState, '08'), \str_starts_with($sqlState, '57P') => ConnectionLostException::class,
            default => QueryException::class,
        };

        return new $class($message, $sqlState, $detail, $hint, $constraint);
    }

    private static function shorten(string $sql): string
    {
        $sql = \trim((string) \preg_replace('/\s+/', ' ', $sql));

        return \strlen($sql) > 200 ? \substr($sql, 0, 197) . '...' : $sql;
    }
}
