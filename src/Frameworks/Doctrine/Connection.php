<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Frameworks\Database\Placeholders;
use Bobbin\Frameworks\Database\Session;
use Bobbin\Postgres\Exception\PostgresException;
use Doctrine\DBAL\Driver\Connection as DriverConnection;
use Doctrine\DBAL\Driver\Exception\NoIdentityValue;

/** A DBAL driver connection over one pooled Bobbin session. */
final class Connection implements DriverConnection
{
    public function __construct(private readonly Session $session)
    {
    }

    public function prepare(string $sql): Statement
    {
        [$converted, $map] = Placeholders::convert($sql);

        return new Statement($this->session, $converted, $map);
    }

    public function query(string $sql): Result
    {
        try {
            $result = $this->session->query($sql);

            return new Result($result->rows, $result->affectedRows);
        } catch (PostgresException $error) {
            throw DriverException::from($error);
        }
    }

    public function quote(string $value): string
    {
        return $this->session->quote($value);
    }

    public function exec(string $sql): int
    {
        try {
            return $this->session->command($sql)->affectedRows;
        } catch (PostgresException $error) {
            throw DriverException::from($error);
        }
    }

    public function lastInsertId(): int|string
    {
        try {
            return $this->session->query('SELECT LASTVAL()')->rows[0]['lastval'];
        } catch (PostgresException $error) {
            if ($error->sqlState() === '55000') {
                throw NoIdentityValue::new(DriverException::from($error)); // lastval is not yet defined in this session
            }
            throw DriverException::from($error);
        }
    }

    public function beginTransaction(): void
    {
        $this->exec('BEGIN');
    }

    public function commit(): void
    {
        $this->exec('COMMIT');
    }

    public function rollBack(): void
    {
        $this->exec('ROLLBACK');
    }

    public function getServerVersion(): string
    {
        try {
            return $this->session->serverVersion();
        } catch (PostgresException $error) {
            throw DriverException::from($error);
        }
    }

    /** The session (Bobbin has no native connection object a caller could use safely). */
    public function getNativeConnection(): Session
    {
        return $this->session;
    }
}
