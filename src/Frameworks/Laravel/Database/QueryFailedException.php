<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Laravel\Database;

use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\PostgresException;

/**
 * A PostgreSQL error as pdo_pgsql reports it: a PDOException whose code is the SQLSTATE and
 * whose errorInfo holds it, so Laravel's QueryException, its unique-violation detection
 * (23505) and its lost-connection check read it as they read PDO's.
 */
final class QueryFailedException extends \PDOException
{
    public static function from(PostgresException $error): self
    {
        $sqlState = $error instanceof ConnectException || $error instanceof ConnectionLostException ? '08006' : $error->sqlState();
        $message = $error instanceof ConnectionLostException
            ? 'server closed the connection unexpectedly: ' . $error->getMessage()
            : $error->getMessage();
        $exception = new self(\sprintf('SQLSTATE[%s]: %s', $sqlState, $message), 0, $error);
        $exception->code = $sqlState;
        $exception->errorInfo = [$sqlState, null, $message];

        return $exception;
    }
}
