<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Async\OwnsResources;
use Bobbin\Platform\RequiredExtension;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Bobbin\Postgres\Exception\PoolTimeoutException;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Internal\PoolConnector;
use Bobbin\Sql\ConnectionPool as SqlConnectionPool;

/**
 * Connections shared by the fibers of one process, on the shared Pool (src/Pool): grows lazily
 * up to maxSize; callers beyond that wait first come, first served, each for at most
 * acquireTimeout. A connection is handed out only when it is idle and alive: broken ones are
 * discarded and replaced, one whose statement was abandoned comes back only once the server has
 * finished with it. query(), transaction(), acquire(), release(), warmUp(), statistics() and
 * close() are Bobbin\Sql\ConnectionPool's.
 *
 * @extends SqlConnectionPool<Result, Connection>
 */
final class ConnectionPool extends SqlConnectionPool implements Executor
{
    use OwnsResources;

    public function __construct(private readonly PoolConfig $config)
    {
        RequiredExtension::check('pgsql', 'The PostgreSQL client (Bobbin\\Postgres)');
        parent::__construct(new Pool(new PoolConnector($config->connection, $this->cancelBackend(...)), $config->poolSettings(), 'postgres ' . $config->connection->describe()));
    }

    /**
     * Opens a dedicated connection (outside the pool's count) subscribed to $channel.
     */
    public function listen(string $channel, int $capacity = 1024): Listener
    {
        return Connection::connect($this->config->connection)->listen($channel, $capacity);
    }

    public function config(): PoolConfig
    {
        return $this->config;
    }

    protected function acquireFailure(SharedPoolTimeoutException|PoolClosedException $error): PostgresException
    {
        return $error instanceof SharedPoolTimeoutException
            ? new PoolTimeoutException($error->getMessage(), previous: $error)
            : new PostgresException($error->getMessage(), previous: $error);
    }

    /** Cancels a statement running on another pooled connection. */
    private function cancelBackend(int $pid): void
    {
        $this->onHelperConnection(
            static fn (Connection $helper): Result => $helper->query('SELECT pg_cancel_backend($1)', [$pid]),
            fn (): Connection => Connection::connect($this->config->connection->forHelperSession()),
        );
    }
}
