<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Mysql\Exception\AccessDeniedException;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\DeadlockException;
use Bobbin\Mysql\Exception\ForeignKeyViolationException;
use Bobbin\Mysql\Exception\IntegrityConstraintViolationException;
use Bobbin\Mysql\Exception\LockWaitTimeoutException;
use Bobbin\Mysql\Exception\MultipleStatementsException;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\QueryCancelledException;
use Bobbin\Mysql\Exception\QueryException;
use Bobbin\Mysql\Exception\QueryTimeoutException;
use Bobbin\Mysql\Exception\UniqueViolationException;

/**
 * Maps the server's error numbers to the exception class callers act on.
 *
 * @internal
 */
final class ErrorFactory
{
    /** ER_PARSE_ERROR: where a second statement in one string ends up. */
    private const PARSE_ERROR = 1064;

    public static function forStatement(ServerError $error, string $sql): MysqlException
    {
        $message = \sprintf('%s (error %d, SQLSTATE %s) in: %s', $error->message, $error->code, $error->sqlState, self::shorten($sql));
        if ($error->code === self::PARSE_ERROR && StatementScanner::hasSeveralStatements($sql)) {
            return new MultipleStatementsException(
                'A query string may hold only one statement (send them one at a time, e.g. inside a transaction, or allow multiple statements in the connection settings): ' . $message,
                $error->code,
                $error->sqlState,
            );
        }
        $class = match ($error->code) {
            1062, 1586 => UniqueViolationException::class,
            1451, 1452, 1216, 1217 => ForeignKeyViolationException::class,
            // NOT NULL, no default value, CHECK constraints (MariaDB, MySQL), data truncated in strict mode is not here: a wrong value is the caller's bug.
            1048, 1364, 4025, 3819 => IntegrityConstraintViolationException::class,
            1213 => DeadlockException::class,
            1205 => LockWaitTimeoutException::class,
            // Interrupted (KILL QUERY), max_statement_time (MariaDB), max_execution_time (MySQL).
            1317, 1969, 3024 => QueryCancelledException::class,
            // The session is gone: killed, server shutting down, idle too long (MariaDB, MySQL).
            1927, 1053, 4031, 1152 => ConnectionLostException::class,
            default => QueryException::class,
        };

        return new $class($message, $error->code, $error->sqlState);
    }

    public static function forConnect(ServerError $error, string $target): ConnectException
    {
        $message = \sprintf('Cannot connect to MySQL (%s): %s (error %d)', $target, $error->message, $error->code);
        // Access denied for user / to database, unix_socket user mismatch, a user that requires TLS (MySQL 3159).
        if (\in_array($error->code, [1044, 1045, 1698, 3159, 1251], true)) {
            return new AccessDeniedException($message, $error->code, $error->sqlState);
        }

        return new ConnectException($message, $error->code, $error->sqlState);
    }

    /** What the caller of an interrupted statement gets: its own cancellation, or the connection's query timeout. */
    public static function interruption(CancelledException $reason, ?Cancellation $cancellation, ?float $queryTimeout, string $sql): CancelledException|MysqlException
    {
        if ($cancellation !== null && $cancellation->isRequested()) {
            return $reason;
        }

        return new QueryTimeoutException(\sprintf(
            'The statement ran longer than its timeout of %.3f s and was stopped: %s',
            $queryTimeout ?? 0.0,
            self::shorten($sql),
        ), 1317, '70100');
    }

    public static function shorten(string $sql): string
    {
        $sql = \trim((string) \preg_replace('/\s+/', ' ', $sql));

        return \strlen($sql) > 200 ? \substr($sql, 0, 197) . '...' : $sql;
    }
}
