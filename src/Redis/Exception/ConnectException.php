<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** The connection could not be opened (refused, unreachable, TLS failed, the handshake went wrong); nothing was sent. */
class ConnectException extends RedisException
{
}
