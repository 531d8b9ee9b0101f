<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

use Bobbin\Sql\Result;

/**
 * One database session of a framework connection object, whatever the database: Session for
 * PostgreSQL, MysqlSession for MySQL/MariaDB. What the framework drivers built on the Sql layer
 * use of it.
 */
interface SqlSession
{
    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = []): Result;

    /** A statement without parameters (DDL, transaction control). */
    public function command(string $sql): Result;

    /** A string literal for the session's server. */
    public function quote(string $value): string;

    public function serverVersion(): string;

    /** Whether the session's connection is inside a transaction (false before its first statement). */
    public function inTransaction(): bool;

    /** Gives the connection back to the pool unless a transaction holds it. */
    public function release(): void;
}
