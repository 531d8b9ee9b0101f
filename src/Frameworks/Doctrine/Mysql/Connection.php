<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine\Mysql;

use Bobbin\Frameworks\Database\MysqlSession;
use Bobbin\Frameworks\Doctrine\Result;
use Bobbin\Mysql\Exception\MysqlException;
use Doctrine\DBAL\Driver\Connection as DriverConnection;
use Doctrine\DBAL\Driver\Exception\NoIdentityValue;

/** A DBAL driver connection over one pooled MySQL connection. */
final class Connection implements DriverConnection
{
    public function __construct(private readonly MysqlSession $session)
    {
    }

    public function prepare(string $sql): Statement
    {
        return new Statement($this->session, $sql);
    }

    public function query(string $sql): Result
    {
        try {
            $result = $this->session->query($sql);
        } catch (MysqlException $error) {
            throw DriverException::from($error);
        }

        return new Result($result->rows, $result->affectedRows);
    }

    public function quote(string $value): string
    {
        return $this->session->quote($value);
    }

    public function exec(string $sql): int
    {
        try {
            return $this->session->command($sql)->affectedRows;
        } catch (MysqlException $error) {
            throw DriverException::from($error);
        }
    }

    public function lastInsertId(): int|string
    {
        return $this->session->lastInsertId() !== 0 ? $this->session->lastInsertId() : throw NoIdentityValue::new();
    }

    public function beginTransaction(): void
    {
        $this->exec('START TRANSACTION');
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
        } catch (MysqlException $error) {
            throw DriverException::from($error);
        }
    }

    /** The session (Bobbin has no native connection object a caller could use safely). */
    public function getNativeConnection(): MysqlSession
    {
        return $this->session;
    }
}
