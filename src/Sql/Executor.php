<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;

/**
 * What runs statements, whatever the database: a connection, a pool or a transaction.
 * Exactly one statement per call; the placeholders are the database's ($1… or ?).
 *
 * Transactions are not in this contract: each client's Executor adds transaction() with its
 * own isolation levels (an application's own implementation of Postgres\Executor names
 * Postgres\IsolationLevel, which a shared signature could not narrow to).
 */
interface Executor
{
    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result;

    /**
     * @param array<int, mixed> $params
     * @return list<array<string, mixed>>
     */
    public function queryAll(string $sql, array $params = [], ?Cancellation $cancellation = null): array;

    /**
     * The first row, or null when there is none.
     *
     * @param array<int, mixed> $params
     * @return array<string, mixed>|null
     */
    public function queryOne(string $sql, array $params = [], ?Cancellation $cancellation = null): ?array;

    /**
     * The first column of the first row, or null when there is no row.
     *
     * @param array<int, mixed> $params
     */
    public function queryValue(string $sql, array $params = [], ?Cancellation $cancellation = null): mixed;

    /**
     * Rows inserted, updated or deleted (or returned, for a SELECT).
     *
     * @param array<int, mixed> $params
     */
    public function execute(string $sql, array $params = [], ?Cancellation $cancellation = null): int;
}
