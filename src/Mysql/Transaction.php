<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Mysql\Internal\TransactionDialect;
use Bobbin\Sql\IsolationLevel as SqlIsolationLevel;
use Bobbin\Sql\Transaction as SqlTransaction;
use Closure;

/**
 * A transaction (or a savepoint inside one) pinned to one connection: Bobbin\Sql\Transaction
 * with this client's TransactionDialect. Only valid inside the callback it was given to;
 * afterwards every call throws a TransactionException.
 *
 * @extends SqlTransaction<Result>
 */
final class Transaction extends SqlTransaction implements Executor
{
    use OwnsResources;

    /**
     * @internal use Connection::transaction() or ConnectionPool::transaction()
     * @template T
     * @param Closure(Transaction): T $work
     * @return T
     */
    public static function run(Connection $connection, Closure $work, ?SqlIsolationLevel $isolation, ?Cancellation $cancellation): mixed
    {
        return self::runOn($connection, new TransactionDialect(), $work, $isolation, $cancellation);
    }
}
