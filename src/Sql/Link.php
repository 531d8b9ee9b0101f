<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;
use Closure;

/**
 * One session with the server: what the transaction runner and the pool facade need of a
 * client's Connection beyond running statements.
 *
 * @template-covariant R of Result the client's Result
 */
interface Link extends Executor
{
    /**
     * Runs a statement without parameters as it is (BEGIN, SAVEPOINT, COMMIT…): not for user
     * input.
     */
    public function command(string $sql, ?Cancellation $cancellation = null): Result;

    public function isClosed(): bool;

    public function close(): void;

    /**
     * Runs $work in a transaction on this session: committed when it returns, rolled back when
     * it throws (the exception is rethrown).
     *
     * @template T
     * @param Closure(Transaction<R>): T $work
     * @return T
     */
    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed;
}
