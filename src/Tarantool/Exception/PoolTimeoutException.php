<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** No pooled connection was free within acquireTimeout, or too many callers waited. */
final class PoolTimeoutException extends TarantoolException
{
}
