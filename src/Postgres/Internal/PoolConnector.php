<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;
use Bobbin\Pool\DelegatesToConnection;
use Bobbin\Pool\TransactionAwareConnector;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\ConnectionState;
use Closure;

/**
 * How the shared pool opens, checks and recycles PostgreSQL sessions.
 *
 * @internal
 * @implements TransactionAwareConnector<Connection>
 */
final class PoolConnector implements TransactionAwareConnector
{
    use DelegatesToConnection;

    /** @param Closure(int): void $canceller how a pooled session's abandoned statement is cancelled */
    public function __construct(
        private readonly ConnectionConfig $config,
        private readonly Closure $canceller,
    ) {
    }

    public function open(?Cancellation $cancellation): object
    {
        $connection = Connection::connect($this->config, $cancellation);
        $connection->setCanceller($this->canceller);

        return $connection;
    }

    public function ping(object $connection): bool
    {
        $connection->command('SELECT 1');

        return true;
    }

    public function isInTransaction(object $connection): bool
    {
        return $connection->inTransaction();
    }

    public function prepareForReuse(object $connection): Future|false|null
    {
        if ($connection->state() === ConnectionState::Draining) {
            // Its abandoned statement is still being cancelled: it comes back once the server is done.
            return Async::run(static fn () => $connection->awaitIdle());
        }
        // A session left inside a transaction (not through transaction()) cannot be trusted: closed.
        return $connection->isClosed() || $connection->inTransaction() ? false : null;
    }
}
