<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\OwnsResources;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\PoolTimeoutException;
use Bobbin\Mysql\Internal\PoolConnector;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Bobbin\Sql\ConnectionPool as SqlConnectionPool;

/**
 * MySQL/MariaDB connections shared by the fibers of one process, on the shared Pool
 * (src/Pool): lazily opened up to maxSize, callers beyond that wait first come, first served.
 * A connection is handed out only when it is idle, alive and clean: broken ones are replaced,
 * one whose statement was abandoned comes back once the server is done with it, one whose
 * session changed is reset first. A statement already sent is never retried. query(),
 * transaction(), acquire(), release(), warmUp(), statistics() and close() are
 * Bobbin\Sql\ConnectionPool's.
 *
 * @extends SqlConnectionPool<Result, Connection>
 */
final class ConnectionPool extends SqlConnectionPool implements Executor
{
    use OwnsResources;

    public function __construct(private readonly PoolConfig $config)
    {
        parent::__construct(new Pool(new PoolConnector($config->connection, $this->killQuery(...)), $config->pool, 'mysql ' . $config->connection->describe()));
    }

    public function config(): PoolConfig
    {
        return $this->config;
    }

    protected function acquireFailure(SharedPoolTimeoutException|PoolClosedException $error): MysqlException
    {
        return $error instanceof SharedPoolTimeoutException
            ? new PoolTimeoutException($error->getMessage(), 0, '', $error)
            : new MysqlException($error->getMessage(), 0, '', $error);
    }

    /** Kills the statement running on another pooled connection. */
    private function killQuery(int $connectionId): void
    {
        $this->onHelperConnection(
            static fn (Connection $helper): Result => $helper->command('KILL QUERY ' . $connectionId),
            fn (): Connection => Connection::connect($this->config->connection->with(statementCacheSize: 0, queryTimeout: 5.0)),
        );
    }
}
