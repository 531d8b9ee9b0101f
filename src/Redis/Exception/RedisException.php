<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

/** Base of every error of the Redis client. */
class RedisException extends \RuntimeException
{
}
