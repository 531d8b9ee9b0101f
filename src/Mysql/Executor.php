<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Cancellation;
use Closure;

/**
 * What runs statements: a Connection, a ConnectionPool or a Transaction. Parameters are ?, ?…;
 * exactly one statement per call.
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

    /**
     * Runs $work in a transaction (a savepoint when already inside one): committed when $work
     * returns, rolled back when it throws (the exception is rethrown).
     *
     * @template T
     * @param Closure(Transaction): T $work
     * @return T
     */
    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed;
}
