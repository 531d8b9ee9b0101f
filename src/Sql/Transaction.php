<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;
use Closure;

/**
 * A transaction (or a savepoint inside one) pinned to one connection, for every database: the
 * callback's return commits, its exception rolls back; nested transaction() calls are
 * savepoints; COMMIT is never cancelled; a COMMIT the server turned into a rollback is an
 * exception, never a silent success. What differs between servers is the TransactionDialect.
 *
 * Only valid inside the callback it was given to; afterwards every call throws the client's
 * TransactionException.
 *
 * Its subclasses use Async\OwnsResources (each, so that a refused clone names the class).
 *
 * @template-covariant R of Result
 */
abstract class Transaction implements Executor
{
    use ExecutesQueries;

    private bool $active = true;
    private int $savepoints = 0;

    /** @param Link<Result> $connection */
    final protected function __construct(
        private readonly Link $connection,
        private readonly TransactionDialect $dialect,
        private readonly int $depth,
    ) {
    }

    /**
     * Runs $work in a transaction on $connection, as a transaction of the calling class.
     *
     * @internal use the client's Connection::transaction() or ConnectionPool::transaction()
     * @template T
     * @param Closure(static): T $work
     * @return T
     * @param Link<Result> $connection
     */
    final protected static function runOn(Link $connection, TransactionDialect $dialect, Closure $work, ?IsolationLevel $isolation, ?Cancellation $cancellation): mixed
    {
        $mark = $dialect->begin($connection, $isolation, $cancellation);
        $transaction = new static($connection, $dialect, 0);
        try {
            // PHPStan types `new static` with the bound of R, not the subclass's own R.
            $result = $work($transaction); // @phpstan-ignore argument.type
        } catch (\Throwable $e) {
            $transaction->active = false;
            $transaction->quietly('ROLLBACK');
            throw $e;
        }
        $transaction->active = false;
        $lost = $dialect->rolledBackBeforeCommit($connection, $mark);
        if ($lost !== null) {
            $transaction->quietly('ROLLBACK');
            throw $lost;
        }
        // Never cancelled: a COMMIT abandoned halfway would leave the outcome unknown.
        $lost = $dialect->commitAnsweredWithRollback($connection->command('COMMIT'));
        if ($lost !== null) {
            throw $lost;
        }

        return $result;
    }

    /**
     * @param array<int, mixed> $params
     * @return R
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        if (!$this->active) {
            throw $this->notActive();
        }
        /** @var R */
        return $this->connection->query($sql, $params, $cancellation);
    }

    /**
     * A nested transaction: a savepoint, released when $work returns and rolled back to when it
     * throws (the outer transaction goes on).
     *
     * @template T
     * @param Closure(static): T $work
     * @return T
     */
    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        if (!$this->active) {
            throw $this->notActive();
        }
        if ($isolation !== null) {
            throw $this->dialect->misuse('The isolation level can only be chosen for the outermost transaction');
        }
        $name = \sprintf('bobbin_sp_%d_%d', $this->depth + 1, ++$this->savepoints);
        $this->connection->command('SAVEPOINT ' . $name, $cancellation);
        $inner = new static($this->connection, $this->dialect, $this->depth + 1);
        $this->active = false;
        try {
            $result = $work($inner); // @phpstan-ignore argument.type (as in runOn())
        } catch (\Throwable $e) {
            $inner->active = false;
            $this->active = true;
            $this->quietly('ROLLBACK TO SAVEPOINT ' . $name);
            $this->quietly('RELEASE SAVEPOINT ' . $name);
            throw $e;
        }
        $inner->active = false;
        $this->active = true;
        $this->connection->command('RELEASE SAVEPOINT ' . $name);

        return $result;
    }

    public function isActive(): bool
    {
        return $this->active;
    }

    /** Rolling back after a failure must not hide that failure: its own errors are dropped. */
    private function quietly(string $sql): void
    {
        try {
            if (!$this->connection->isClosed()) {
                $this->connection->command($sql);
            }
        } catch (\Throwable $error) {
            if (!$this->dialect->isClientError($error)) {
                throw $error;
            }
            // A broken connection is discarded by its owner; the original error is what matters.
        }
    }

    private function notActive(): \Throwable
    {
        return $this->dialect->misuse($this->depth === 0 && $this->savepoints === 0
            ? 'The transaction is over: use it only inside its callback'
            : 'This transaction is not the innermost active one (or is over)');
    }
}
