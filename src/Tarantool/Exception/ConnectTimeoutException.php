<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\Timeout;

/** Connecting (greeting and authentication included) took longer than connectTimeout. */
final class ConnectTimeoutException extends ConnectException implements Timeout
{
}
