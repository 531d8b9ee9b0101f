<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

use Bobbin\Async\Timeout;

/** The command's reply did not come within the configured command timeout; it is read and dropped when it comes (or the connection is closed). */
final class CommandTimeoutException extends RedisException implements Timeout
{
}
