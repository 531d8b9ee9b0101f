<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Doctrine;

use Bobbin\Frameworks\Database\SqlSession;
use Doctrine\DBAL\Driver\Connection as DriverConnection;
use Doctrine\DBAL\Driver\Exception as DriverExceptionContract;
use Doctrine\DBAL\Driver\Statement as DriverStatement;

/**
 * A DBAL driver connection over one pooled session, for every database: statements, quoting,
 * transaction control and the server version, with the client's errors turned into DBAL's
 * driver exceptions. The database's subclass says how statements are prepared, how the last
 * insert id is read, how a transaction starts and how its client's errors convert.
 *
 * @template S of SqlSession
 */
abstract class SqlConnection implements DriverConnection
{
    /** @param S $session */
    public function __construct(protected readonly SqlSession $session)
    {
    }

    /** The client's error as DBAL's driver layer reports it, or null for anything else. */
    abstract protected function driverException(\Throwable $error): ?DriverExceptionContract;

    /** The statement that opens a transaction (BEGIN, START TRANSACTION). */
    abstract protected function beginStatement(): string;

    abstract public function prepare(string $sql): DriverStatement;

    public function query(string $sql): Result
    {
        try {
            $result = $this->session->query($sql);
        } catch (\Throwable $error) {
            throw $this->driverException($error) ?? $error;
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
        } catch (\Throwable $error) {
            throw $this->driverException($error) ?? $error;
        }
    }

    public function beginTransaction(): void
    {
        $this->exec($this->beginStatement());
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
        } catch (\Throwable $error) {
            throw $this->driverException($error) ?? $error;
        }
    }

    /**
     * The session (Bobbin has no native connection object a caller could use safely).
     *
     * @return S
     */
    public function getNativeConnection(): SqlSession
    {
        return $this->session;
    }
}
