<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

use Bobbin\Async\PoolTimeout;

/** No dedicated connection became free within the pool's acquire timeout, or too many callers wait. */
final class PoolTimeoutException extends RedisException implements PoolTimeout
{
}
