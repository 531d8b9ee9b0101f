<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\PoolTimeout;

/** No connection became free within acquireTimeout, or maxWaiters callers already wait. */
final class PoolTimeoutException extends MysqlException implements PoolTimeout
{
}
