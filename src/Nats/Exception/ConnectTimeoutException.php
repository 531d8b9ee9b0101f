<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

use Bobbin\Async\Timeout;

/** Connecting (TLS and the INFO/CONNECT handshake included) took longer than connectTimeout; nothing was sent. 503. */
final class ConnectTimeoutException extends ConnectException implements Timeout
{
}
