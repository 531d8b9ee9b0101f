<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

use Bobbin\Frameworks\RequestScope;
use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Result;

/**
 * Session's counterpart on the MySQL/MariaDB client: one connection taken from the pool on
 * first use and kept, as a mysqli or PDO connection is, so LAST_INSERT_ID(), SET and temporary
 * tables stay where the framework expects them. Statements wait without blocking the worker
 * and take the current request's cancellation; a lost connection is handed back (the pool
 * discards it) and the next statement takes a fresh one.
 */
final class MysqlSession implements SqlSession
{
    private ?Connection $connection = null;

    private int|string $lastInsertId = 0;

    public function __construct(private readonly ConnectionPool $pool)
    {
    }

    /** @param list<mixed> $params bound to the statement's ? in order */
    public function query(string $sql, array $params = []): Result
    {
        return $this->remember(static fn (Connection $connection): Result => $connection->query($sql, $params, RequestScope::cancellation()));
    }

    /** A statement without parameters over the text protocol (DDL, START TRANSACTION, SAVEPOINT). */
    public function command(string $sql): Result
    {
        return $this->remember(static fn (Connection $connection): Result => $connection->command($sql, RequestScope::cancellation()));
    }

    /** The id the last INSERT of this session generated, 0 when none did; above PHP_INT_MAX its decimal string. */
    public function lastInsertId(): int|string
    {
        return $this->lastInsertId;
    }

    public function inTransaction(): bool
    {
        return $this->connection?->inTransaction() ?? false;
    }

    public function serverVersion(): string
    {
        return $this->connection()->serverVersion();
    }

    /**
     * A string literal as mysqli::real_escape_string() makes it under the default SQL mode
     * (backslash escapes on).
     */
    public function quote(string $value): string
    {
        return "'" . \strtr($value, ["\0" => '\\0', "\n" => '\\n', "\r" => '\\r', '\\' => '\\\\', "'" => "\\'", '"' => '\\"', "\x1a" => '\\Z']) . "'";
    }

    /** Gives the connection back to the pool unless a transaction holds it. */
    public function release(): void
    {
        if ($this->connection !== null && !$this->connection->inTransaction()) {
            $this->pool->release($this->connection);
            $this->connection = null;
        }
    }

    public function __destruct()
    {
        if ($this->connection !== null) {
            $this->pool->release($this->connection);
        }
    }

    /** @param \Closure(Connection): Result $statement */
    private function remember(\Closure $statement): Result
    {
        $connection = $this->connection();
        try {
            $result = $statement($connection);
        } catch (ConnectionLostException $lost) {
            $this->pool->release($connection);
            $this->connection = null;
            throw $lost;
        }
        if ($result->lastInsertId !== 0) {
            $this->lastInsertId = $result->lastInsertId;
        }

        return $result;
    }

    private function connection(): Connection
    {
        return $this->connection ??= $this->pool->acquire(RequestScope::cancellation());
    }
}
