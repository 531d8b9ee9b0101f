<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OwnsResources;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\PoolTimeoutException;
use Bobbin\Mysql\Internal\PoolConnector;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolStatistics;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Closure;

/**
 * MySQL/MariaDB connections shared by the fibers of one process, on the shared Pool
 * (src/Pool): lazily opened up to maxSize, callers beyond that wait first come, first served.
 * A connection is handed out only when it is idle, alive and clean: broken ones are replaced,
 * one whose statement was abandoned comes back once the server is done with it, one whose
 * session changed is reset first. A statement already sent is never retried.
 */
final class ConnectionPool implements Executor
{
    use OwnsResources;

    use ExecutesQueries;

    /** @var Pool<Connection> */
    private readonly Pool $pool;

    public function __construct(private readonly PoolConfig $config)
    {
        $this->pool = new Pool(new PoolConnector($config->connection, $this->killQuery(...)), $config->pool, 'mysql ' . $config->connection->describe());
    }

    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        // acquire() written out: one call fewer on the path of every statement.
        try {
            $connection = $this->pool->acquire($cancellation);
        } catch (SharedPoolTimeoutException|PoolClosedException $e) {
            throw self::poolError($e);
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
            $this->pool->release($connection);
        }
    }

    /**
     * Takes a connection for exclusive use; give it back with release() (query() and
     * transaction() do both).
     *
     * @throws PoolTimeoutException|CancelledException|MysqlException
     */
    public function acquire(?Cancellation $cancellation = null): Connection
    {
        try {
            return $this->pool->acquire($cancellation);
        } catch (SharedPoolTimeoutException|PoolClosedException $e) {
            throw self::poolError($e);
        }
    }

    /** The shared pool's exceptions as this client's. */
    private static function poolError(SharedPoolTimeoutException|PoolClosedException $e): MysqlException
    {
        return $e instanceof SharedPoolTimeoutException
            ? new PoolTimeoutException($e->getMessage(), 0, '', $e)
            : new MysqlException($e->getMessage(), 0, '', $e);
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

    /** Closes idle connections now and the others as they come back; waiting callers get an exception. */
    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * Kills the statement running on another pooled connection: over an idle connection when
     * there is one, else over a short-lived connection outside the pool (the pool may be full of
     * exactly the statements being killed).
     */
    private function killQuery(int $connectionId): void
    {
        $helper = $this->pool->tryAcquireIdle();
        if ($helper !== null) {
            try {
                $helper->command('KILL QUERY ' . $connectionId);
            } finally {
                $this->pool->release($helper);
            }

            return;
        }
        $connection = Connection::connect($this->config->connection->with(statementCacheSize: 0, queryTimeout: 5.0));
        try {
            $connection->command('KILL QUERY ' . $connectionId);
        } finally {
            $connection->close();
        }
    }
}
