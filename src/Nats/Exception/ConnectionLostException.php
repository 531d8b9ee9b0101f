<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

use Bobbin\Async\ConnectionLost;

/** The connection broke (or was closed) while this call was in flight: a request may or may not have been handled; it is not retried. 503, or retry if it is idempotent. */
final class ConnectionLostException extends NatsException implements ConnectionLost
{
}
