<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Async\OwnsResources;
use Bobbin\Platform\RequiredExtension;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolStatistics;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Bobbin\Postgres\Exception\PoolTimeoutException;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Internal\PoolConnector;
use Closure;

/**
 * Connections shared by the fibers of one process, on the shared Pool (src/Pool): grows lazily
 * up to maxSize; callers beyond that wait first come, first served, each for at most
 * acquireTimeout. A connection is handed out only when it is idle and alive: broken ones are
 * discarded and replaced, one whose statement was abandoned comes back only once the server has
 * finished with it.
 */
final class ConnectionPool implements Executor
{
    use OwnsResources;

    use ExecutesQueries;

    /** @var Pool<Connection> */
    private readonly Pool $pool;

    public function __construct(private readonly PoolConfig $config)
    {
        RequiredExtension::check('pgsql', 'The PostgreSQL client (Bobbin\\Postgres)');
        $this->pool = new Pool(new PoolConnector($config->connection, $this->cancelBackend(...)), $config->poolSettings(), 'postgres ' . $config->connection->describe());
    }

    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        // The pool itself, not acquire() and release(): a call less each way on every statement.
        try {
            $connection = $this->pool->acquire($cancellation);
        } catch (SharedPoolTimeoutException | PoolClosedException $e) {
            throw self::acquireFailure($e);
        }
        // Not finally: it stops PHP's tracing JIT (FAST_CALL) on the path of every statement.
        try {
            $result = $connection->query($sql, $params, $cancellation);
        } catch (\Throwable $error) {
            $this->pool->release($connection);
            throw $error;
        }
        $this->pool->release($connection);

        return $result;
    }

    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->acquire($cancellation);
        try {
            return Transaction::run($connection, $work, $isolation, $cancellation);
        } finally {
            $this->release($connection);
        }
    }

    /**
     * Opens a dedicated connection (outside the pool's count) subscribed to $channel.
     */
    public function listen(string $channel, int $capacity = 1024): Listener
    {
        return Connection::connect($this->config->connection)->listen($channel, $capacity);
    }

    /**
     * Takes a connection for exclusive use; give it back with release() (query() and
     * transaction() do both).
     *
     * @throws PoolTimeoutException|CancelledException|PostgresException
     */
    public function acquire(?Cancellation $cancellation = null): Connection
    {
        try {
            return $this->pool->acquire($cancellation);
        } catch (SharedPoolTimeoutException | PoolClosedException $e) {
            throw self::acquireFailure($e);
        }
    }

    /** The shared pool's failure to hand out a connection, as this client's exception. */
    private static function acquireFailure(SharedPoolTimeoutException|PoolClosedException $e): PostgresException
    {
        return $e instanceof SharedPoolTimeoutException
            ? new PoolTimeoutException($e->getMessage(), previous: $e)
            : new PostgresException($e->getMessage(), previous: $e);
    }

    public function release(Connection $connection): void
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

    public function config(): PoolConfig
    {
        return $this->config;
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
     * Cancels a statement running on another pooled connection: over an idle connection when
     * there is one, else over a short-lived connection outside the pool (the pool may be full of
     * exactly the statements being cancelled).
     */
    private function cancelBackend(int $pid): void
    {
        $helper = $this->pool->tryAcquireIdle();
        if ($helper !== null) {
            try {
                $helper->query('SELECT pg_cancel_backend($1)', [$pid]);
            } finally {
                $this->pool->release($helper);
            }

            return;
        }
        $connection = Connection::connect($this->config->connection->forHelperSession());
        try {
            $connection->query('SELECT pg_cancel_backend($1)', [$pid]);
        } finally {
            $connection->close();
        }
    }
}
