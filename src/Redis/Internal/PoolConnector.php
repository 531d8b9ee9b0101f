<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;
use Bobbin\Pool\Connector;
use Bobbin\Pool\DelegatesToConnection;
use Bobbin\Redis\Connection;
use Bobbin\Redis\ConnectionConfig;

/**
 * How the shared pool opens, checks and recycles the dedicated connections (transactions,
 * blocking commands). One that comes back with replies still due (its caller was cancelled, a
 * BLPOP was unblocked) is reusable once they are read, within DRAIN_TIMEOUT, or closed.
 *
 * @internal
 * @implements Connector<Connection>
 */
final class PoolConnector implements Connector
{
    use DelegatesToConnection;

    private const DRAIN_TIMEOUT = 5.0;

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

    public function prepareForReuse(object $connection): Future|false|null
    {
        if ($connection->isClosed()) {
            return false;
        }
        if ($connection->inFlight() === 0) {
            return null;
        }

        return Async::run(static fn () => $connection->awaitIdle(self::DRAIN_TIMEOUT));
    }
}
