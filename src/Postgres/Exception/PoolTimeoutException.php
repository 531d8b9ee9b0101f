<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Exception;

use Bobbin\Async\PoolTimeout;

/** No pooled connection became free within the acquire timeout (or too many callers were already waiting). */
final class PoolTimeoutException extends PostgresException implements PoolTimeout
{
}
