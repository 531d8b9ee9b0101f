<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Exception;

use Bobbin\Async\Timeout;

/** Opening a session took longer than connectTimeout. */
final class ConnectTimeoutException extends ConnectException implements Timeout
{
}
