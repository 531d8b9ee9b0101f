<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Exception;

use Bobbin\Async\ConnectionLost;

/** The connection broke before the answer came: the request may or may not have run. */
final class ConnectionLostException extends TarantoolException implements ConnectionLost
{
}
