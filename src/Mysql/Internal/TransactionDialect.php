<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Mysql\Connection;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\TransactionException;
use Bobbin\Sql\IsolationLevel;
use Bobbin\Sql\Link;
use Bobbin\Sql\Result;
use Bobbin\Sql\TransactionDialect as SqlTransactionDialect;

/**
 * MySQL's and MariaDB's part of a transaction: the isolation level is a statement of its own
 * before START TRANSACTION, and InnoDB rolls a transaction back by itself at a deadlock — the
 * connection counts those (serverRollbacks()), and a count that moved during the callback means
 * there is nothing left to commit. COMMIT's answer says nothing of it.
 *
 * @internal
 */
final class TransactionDialect implements SqlTransactionDialect
{
    /** @param Link<Result> $connection */
    public function begin(Link $connection, ?IsolationLevel $isolation, ?Cancellation $cancellation): int
    {
        if ($isolation !== null) {
            // Applies to the next transaction only.
            $connection->command('SET TRANSACTION ISOLATION LEVEL ' . $isolation->sql(), $cancellation);
        }
        $connection->command('START TRANSACTION', $cancellation);

        return self::serverRollbacks($connection);
    }

    /** @param Link<Result> $connection */
    public function rolledBackBeforeCommit(Link $connection, int $mark): ?\Throwable
    {
        if (self::serverRollbacks($connection) === $mark) {
            return null;
        }

        // A deadlock inside the callback was caught there: InnoDB had already rolled the
        // transaction back, and what ran after it was committed statement by statement.
        return new TransactionException('The server rolled the transaction back (a deadlock error was caught inside it); nothing before that error was committed', 1213, '40001');
    }

    public function commitAnsweredWithRollback(Result $commit): ?\Throwable
    {
        return null;
    }

    public function misuse(string $message): \Throwable
    {
        return new TransactionException($message);
    }

    public function isClientError(\Throwable $error): bool
    {
        return $error instanceof MysqlException;
    }

    /** @param Link<Result> $connection */
    private static function serverRollbacks(Link $connection): int
    {
        return $connection instanceof Connection ? $connection->serverRollbacks() : 0;
    }
}
