<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** No connection could be made (refused, unreachable, TLS failed, or the connect timed out); nothing was sent. 503. */
class ConnectException extends NatsException
{
}
