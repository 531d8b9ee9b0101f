<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;

/**
 * The per-database part of Transaction: how a transaction starts, how each server says it
 * rolled back on its own what the caller believed was still open, and the client's error types.
 * Savepoints are not here: SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE SAVEPOINT are the same
 * SQL in PostgreSQL, MySQL and MariaDB.
 */
interface TransactionDialect
{
    /**
     * Opens the outermost transaction (with $isolation when given).
     *
     * @return int what rolledBackBeforeCommit() compares with, later
     * @param Link<Result> $connection
     */
    public function begin(Link $connection, ?IsolationLevel $isolation, ?Cancellation $cancellation): int;

    /**
     * Why the transaction can no longer be committed although no exception left the callback
     * (MySQL: InnoDB rolled it back at a deadlock the callback caught, and what ran after it was
     * committed statement by statement), or null. Asked just before COMMIT.
     * @param Link<Result> $connection
     */
    public function rolledBackBeforeCommit(Link $connection, int $mark): ?\Throwable;

    /**
     * Why COMMIT's answer means the server rolled back instead (PostgreSQL answers COMMIT of a
     * failed transaction with ROLLBACK), or null.
     */
    public function commitAnsweredWithRollback(Result $commit): ?\Throwable;

    /** The client's exception for a transaction used wrongly. */
    public function misuse(string $message): \Throwable;

    /** Whether $error is the client's own (a broken session, a refused statement), not a bug. */
    public function isClientError(\Throwable $error): bool;
}
