<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\ConnectionState;
use Bobbin\Pool\DelegatesToConnection;
use Bobbin\Pool\TransactionAwareConnector;
use Closure;

/**
 * How the shared pool opens, checks and recycles MySQL sessions. A session comes back to the
 * pool clean: one left inside a transaction or with changed session state (user variables,
 * sql_mode, temporary tables, USE…, as the server's session tracking reports) is reset with
 * COM_RESET_CONNECTION before the next borrower gets it.
 *
 * @internal
 * @implements TransactionAwareConnector<Connection>
 */
final class PoolConnector implements TransactionAwareConnector
{
    use DelegatesToConnection;

    /** Bound of the reset of a dirty session before it goes back to the pool. */
    private const RESET_TIMEOUT = 5.0;

    /** @param Closure(int): void $canceller how a pooled session's abandoned statement is killed */
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
        $connection->ping();

        return true;
    }

    public function isInTransaction(object $connection): bool
    {
        return $connection->inTransaction();
    }

    public function prepareForReuse(object $connection): Future|false|null
    {
        if ($connection->isIdleAndClean()) {
            return null; // every statement's release: one call where three were
        }
        $state = $connection->state();
        if ($state === ConnectionState::Idle) {

            return Async::run(static function () use ($connection): void {
                try {
                    $connection->reset(new TimeoutCancellation(self::RESET_TIMEOUT));
                } catch (\Throwable) {
                    $connection->close();
                }
            });
        }
        if ($state === ConnectionState::Draining) {
            // Its abandoned statement is still being killed: it comes back once the server is done.
            return Async::run(static fn () => $connection->awaitIdle());
        }

        return false;
    }
}
