<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\PoolTimeout;

/** No pooled connection was free within acquireTimeout, or too many callers waited. */
final class PoolTimeoutException extends TarantoolException implements PoolTimeout
{
}
