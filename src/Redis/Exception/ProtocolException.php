<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** The server sent what RESP does not allow (or this client does not read); the connection is closed. */
final class ProtocolException extends RedisException
{
}
