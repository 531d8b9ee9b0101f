<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\PostgresException;
use Doctrine\DBAL\Driver\AbstractException;

/**
 * A PostgreSQL error as DBAL's driver layer reports it: DBAL's PostgreSQL exception converter
 * turns its SQLSTATE into UniqueConstraintViolationException, TableNotFoundException, …
 * A connection that cannot be opened or was lost is SQLSTATE 08006 (connection failure).
 */
final class DriverException extends AbstractException
{
    public static function from(PostgresException $error): self
    {
        $sqlState = $error instanceof ConnectException || $error instanceof ConnectionLostException
            ? '08006'
            : ($error->sqlState() !== '' ? $error->sqlState() : null);

        return new self($error->getMessage(), $sqlState, 0, $error);
    }
}
