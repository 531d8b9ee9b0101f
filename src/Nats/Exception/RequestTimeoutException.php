<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

use Bobbin\Async\Timeout;

/** No reply came within the request's timeout: it may or may not have been handled. */
final class RequestTimeoutException extends NatsException implements Timeout
{
}
