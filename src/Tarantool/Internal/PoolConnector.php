<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Pool\Connector;
use Bobbin\Pool\DelegatesToConnection;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\ConnectionConfig;

/**
 * How the shared pool opens, checks and recycles Tarantool connections. A Tarantool session
 * keeps no state between requests that a borrower could leave behind (outside streams, which
 * the pool does not lend), so a connection that comes back open goes on as it is.
 *
 * @internal
 * @implements Connector<Connection>
 */
final class PoolConnector implements Connector
{
    use DelegatesToConnection;

    public function __construct(private readonly ConnectionConfig $config)
    {
    }

    public function open(?Cancellation $cancellation): object
    {
        return Connection::connect($this->config, $cancellation);
    }

    public function ping(object $connection): bool
    {
        $connection->ping();

        return true;
    }

    /** Never a Future: nothing to drain or reset (a cancelled request's late answer is dropped by the connection). */
    public function prepareForReuse(object $connection): false|null
    {
        return $connection->isClosed() || !$connection->isAlive() ? false : null;
    }
}
