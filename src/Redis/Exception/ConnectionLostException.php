<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

use Bobbin\Async\ConnectionLost;

/** The connection broke before the reply was complete: the command may or may not have run. It is never sent again by the client. */
final class ConnectionLostException extends RedisException implements ConnectionLost
{
}
