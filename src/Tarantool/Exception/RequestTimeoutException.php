<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\Timeout;

/** The answer did not come within the connection's requestTimeout (the request may still run on the server). */
final class RequestTimeoutException extends TarantoolException implements Timeout
{
}
