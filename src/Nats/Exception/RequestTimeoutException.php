<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** No reply came within the request's timeout: it may or may not have been handled. */
final class RequestTimeoutException extends NatsException
{
}
