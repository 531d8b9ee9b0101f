<?php

declare(strict_types=1);

namespace Bobbin\Redis\Exception;

use Bobbin\Async\Timeout;

/** Opening the connection (with TLS and the handshake) took longer than its connect timeout. */
final class ConnectTimeoutException extends ConnectException implements Timeout
{
}
