<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Cancellation;
use Bobbin\Sql\Executor as SqlExecutor;
use Bobbin\Sql\Result as SqlResult;
use Closure;

/**
 * What runs statements: a Connection, a ConnectionPool or a Transaction. Parameters are ?, ?…;
 * exactly one statement per call. The statement methods are Bobbin\Sql\Executor's.
 */
interface Executor extends SqlExecutor
{
    /**
     * @param array<int, mixed> $params
     * @return Result
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): SqlResult;

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
