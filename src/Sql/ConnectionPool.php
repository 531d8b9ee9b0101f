<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Bobbin\Async\Cancellation;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolStatistics;
use Bobbin\Pool\PoolTimeoutException;
use Closure;

/**
 * A client's connections on the shared Pool (src/Pool), as one Executor: every statement takes a
 * connection, runs and gives it back; a transaction keeps one for its callback. The client's
 * subclass builds the Pool (its connector knows how to open, check and clean a connection) and
 * turns the shared pool's failures into its own exceptions.
 *
 * Its subclasses use Async\OwnsResources (each, so that a refused clone names the class).
 *
 * @template R of Result
 * @template C of Link<R>
 */
abstract class ConnectionPool implements Executor
{
    use ExecutesQueries;

    /** @param Pool<C> $pool */
    protected function __construct(protected readonly Pool $pool)
    {
    }

    /**
     * The shared pool's failure to hand out a connection (a timeout, a closed pool) as this
     * client's exception.
     */
    abstract protected function acquireFailure(PoolTimeoutException|PoolClosedException $error): \Throwable;

    /**
     * @param array<int, mixed> $params
     * @return R
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        // The pool itself, not acquire() and release(): a call less each way on every statement.
        try {
            $connection = $this->pool->acquire($cancellation);
        } catch (PoolTimeoutException|PoolClosedException $e) {
            throw $this->acquireFailure($e);
        }
        // Not finally: it stops PHP's tracing JIT (FAST_CALL) on the path of every statement.
        try {
            $result = $connection->query($sql, $params, $cancellation);
        } catch (\Throwable $error) {
            $this->pool->release($connection);
            throw $error;
        }
        $this->pool->release($connection);

        /** @var R */
        return $result;
    }

    /**
     * Runs $work in a transaction on one pooled connection, given back when it ends.
     *
     * @template T
     * @param Closure(Transaction<R>): T $work
     * @return T
     */
    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->acquire($cancellation);
        try {
            return $connection->transaction($work, $isolation, $cancellation);
        } finally {
            $this->pool->release($connection);
        }
    }

    /**
     * Takes a connection for exclusive use; give it back with release() (query() and
     * transaction() do both).
     *
     * @return C
     */
    public function acquire(?Cancellation $cancellation = null): Link
    {
        try {
            return $this->pool->acquire($cancellation);
        } catch (PoolTimeoutException|PoolClosedException $e) {
            throw $this->acquireFailure($e);
        }
    }

    /** @param C $connection */
    public function release(Link $connection): void
    {
        $this->pool->release($connection);
    }

    /** Opens connections up to minSize now instead of on first use. */
    public function warmUp(?Cancellation $cancellation = null): void
    {
        $this->pool->warmUp($cancellation);
    }

    public function statistics(): PoolStatistics
    {
        return $this->pool->statistics();
    }

    /**
     * Closes idle connections now and the others as they come back; waiting callers get an
     * exception.
     */
    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * Runs $statement (a cancel request for another pooled connection's statement) over an idle
     * connection when there is one, else over a short-lived connection outside the pool: the
     * pool may be full of exactly the statements being cancelled.
     *
     * @param Closure(C): mixed $statement
     * @param Closure(): C $connect opens the short-lived connection
     */
    protected function onHelperConnection(Closure $statement, Closure $connect): void
    {
        $helper = $this->pool->tryAcquireIdle();
        if ($helper !== null) {
            try {
                $statement($helper);
            } finally {
                $this->pool->release($helper);
            }

            return;
        }
        $connection = $connect();
        try {
            $statement($connection);
        } finally {
            $connection->close();
        }
    }
}
