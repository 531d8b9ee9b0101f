<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

use Bobbin\Frameworks\RequestScope;
use Bobbin\Postgres\Bytea;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Result;

/**
 * One database session of a framework connection object (a Doctrine connection, a Laravel
 * connection): a connection taken from Bobbin's pool on first use and kept, as PDO keeps its
 * one connection — session state such as LASTVAL(), SET and temporary tables stays where the
 * framework expects it. Every statement waits without blocking the worker and takes the
 * current request's cancellation (RequestScope). A lost connection is handed back (the pool
 * discards it) and the next statement takes a fresh one.
 */
final class Session implements SqlSession
{
    private ?Connection $connection = null;

    public function __construct(private readonly ConnectionPool $pool)
    {
    }

    /**
     * @param array<int, mixed> $params by $number, 1-based or 0-based in order
     */
    public function query(string $sql, array $params = []): Result
    {
        $connection = $this->connection();
        try {
            return $connection->query($sql, \array_values($params), RequestScope::cancellation());
        } catch (ConnectionLostException $lost) {
            $this->drop();
            throw $lost;
        }
    }

    /** Statements without parameters over the simple protocol (DDL, BEGIN, SAVEPOINT, several statements). */
    public function command(string $sql): Result
    {
        $connection = $this->connection();
        try {
            return $connection->command($sql, RequestScope::cancellation());
        } catch (ConnectionLostException $lost) {
            $this->drop();
            throw $lost;
        }
    }

    public function inTransaction(): bool
    {
        return $this->connection?->inTransaction() ?? false;
    }

    public function serverVersion(): string
    {
        return (string) $this->query('SHOW server_version')->rows[0]['server_version'];
    }

    public function quote(string $value): string
    {
        // standard_conforming_strings is on (PostgreSQL's default since 9.1): a backslash is
        // itself and only the quote is doubled. No PostgreSQL string can hold a NUL byte.
        if (\str_contains($value, "\0")) {
            throw new \InvalidArgumentException('A PostgreSQL string literal cannot contain a NUL byte: bind binary data as a parameter');
        }

        return "'" . \str_replace("'", "''", $value) . "'";
    }

    /** Gives the connection back to the pool unless a transaction holds it (a worker's idle moment). */
    public function release(): void
    {
        if ($this->connection !== null && !$this->connection->inTransaction()) {
            $this->pool->release($this->connection);
            $this->connection = null;
        }
    }

    /** A binary parameter value, as PostgreSQL's bytea wants it. */
    public static function binary(mixed $value): Bytea
    {
        if (\is_resource($value)) {
            $value = (string) \stream_get_contents($value);
        }

        return new Bytea((string) $value);
    }

    public function __destruct()
    {
        if ($this->connection !== null) {
            $this->pool->release($this->connection);
        }
    }

    private function connection(): Connection
    {
        return $this->connection ??= $this->pool->acquire(RequestScope::cancellation());
    }

    private function drop(): void
    {
        if ($this->connection !== null) {
            $this->pool->release($this->connection);
            $this->connection = null;
        }
    }
}
