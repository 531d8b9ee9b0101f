<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Exception\TransactionException;
use Bobbin\Postgres\Result;
use Bobbin\Sql\IsolationLevel;
use Bobbin\Sql\Link;
use Bobbin\Sql\Result as SqlResult;
use Bobbin\Sql\TransactionDialect as SqlTransactionDialect;

/**
 * PostgreSQL's part of a transaction: BEGIN with its isolation level in one statement, and a
 * COMMIT of a failed transaction (a statement error caught inside the callback) answered with
 * the command tag ROLLBACK.
 *
 * @internal
 */
final class TransactionDialect implements SqlTransactionDialect
{
    /** @param Link<SqlResult> $connection */
    public function begin(Link $connection, ?IsolationLevel $isolation, ?Cancellation $cancellation): int
    {
        $connection->command($isolation === null ? 'BEGIN' : 'BEGIN ISOLATION LEVEL ' . $isolation->sql(), $cancellation);

        return 0;
    }

    /** @param Link<SqlResult> $connection */
    public function rolledBackBeforeCommit(Link $connection, int $mark): ?\Throwable
    {
        return null; // PostgreSQL never ends a transaction on its own: the COMMIT says it
    }

    public function commitAnsweredWithRollback(SqlResult $commit): ?\Throwable
    {
        if (!$commit instanceof Result || $commit->command !== 'ROLLBACK') {
            return null;
        }

        return new TransactionException(
            'The transaction had failed (a statement error was caught inside it) and was rolled back instead of committed',
            '25P02',
        );
    }

    public function misuse(string $message): \Throwable
    {
        return new TransactionException($message);
    }

    public function isClientError(\Throwable $error): bool
    {
        return $error instanceof PostgresException;
    }
}
