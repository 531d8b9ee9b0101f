<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

/** Connecting (greeting and authentication included) took longer than connectTimeout. */
final class ConnectTimeoutException extends ConnectException
{
}
