<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\TransactionException;
use Closure;

/**
 * A transaction (or a savepoint inside one) pinned to one connection. Only valid inside the
 * callback it was given to; afterwards every call throws a TransactionException.
 */
final class Transaction implements Executor
{
    use OwnsResources;

    use ExecutesQueries;

    private bool $active = true;
    private int $savepoints = 0;

    private function __construct(private readonly Connection $connection, private readonly int $depth)
    {
    }

    /**
     * @internal use Connection::transaction() or ConnectionPool::transaction()
     * @template T
     * @param Closure(Transaction): T $work
     * @return T
     */
    public static function run(Connection $connection, Closure $work, ?IsolationLevel $isolation, ?Cancellation $cancellation): mixed
    {
        if ($isolation !== null) {
            // Applies to the next transaction only.
            $connection->command('SET TRANSACTION ISOLATION LEVEL ' . $isolation->value, $cancellation);
        }
        $connection->command('START TRANSACTION', $cancellation);
        $rollbacks = $connection->serverRollbacks();
        $transaction = new self($connection, 0);
        try {
            $result = $work($transaction);
        } catch (\Throwable $e) {
            $transaction->active = false;
            self::quietly($connection, 'ROLLBACK');
            throw $e;
        }
        $transaction->active = false;
        if ($connection->serverRollbacks() !== $rollbacks) {
            // A deadlock inside the callback was caught there: InnoDB had already rolled the
            // transaction back, and what ran after it was committed statement by statement.
            self::quietly($connection, 'ROLLBACK');
            throw new TransactionException('The server rolled the transaction back (a deadlock error was caught inside it); nothing before that error was committed', 1213, '40001');
        }
        // Never cancelled: a COMMIT abandoned halfway would leave the outcome unknown.
        $connection->command('COMMIT');

        return $result;
    }

    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        $this->assertActive();

        return $this->connection->query($sql, $params, $cancellation);
    }

    /**
     * A nested transaction: a savepoint, released when $work returns and rolled back to when it
     * throws (the outer transaction goes on).
     */
    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        $this->assertActive();
        if ($isolation !== null) {
            throw new TransactionException('The isolation level can only be chosen for the outermost transaction');
        }
        $name = \sprintf('bobbin_sp_%d_%d', $this->depth + 1, ++$this->savepoints);
        $this->connection->command('SAVEPOINT ' . $name, $cancellation);
        $inner = new self($this->connection, $this->depth + 1);
        $this->active = false;
        try {
            $result = $work($inner);
        } catch (\Throwable $e) {
            $inner->active = false;
            $this->active = true;
            self::quietly($this->connection, 'ROLLBACK TO SAVEPOINT ' . $name);
            self::quietly($this->connection, 'RELEASE SAVEPOINT ' . $name);
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
    private static function quietly(Connection $connection, string $sql): void
    {
        try {
            if (!$connection->isClosed()) {
                $connection->command($sql);
            }
        } catch (MysqlException) {
            // A broken connection is discarded by its owner; the original error is what matters.
        }
    }

    private function assertActive(): void
    {
        if (!$this->active) {
            throw new TransactionException($this->depth === 0 && $this->savepoints === 0
                ? 'The transaction is over: use it only inside its callback'
                : 'This transaction is not the innermost active one (or is over)');
        }
    }
}
