<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/**
 * A connector that can tell whether a connection came back inside a transaction someone began
 * and did not end (a raw BEGIN): the pool counts those (PoolStatistics::$returnedInTransaction),
 * for leak detection. Asked only when prepareForReuse() did not hand the connection straight back.
 *
 * @template C of object
 * @extends Connector<C>
 */
interface TransactionAwareConnector extends Connector
{
    /** @param C $connection */
    public function isInTransaction(object $connection): bool;
}
