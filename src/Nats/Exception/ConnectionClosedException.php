<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** The connection was closed by its owner (close()): nothing more can be sent or awaited on it. */
final class ConnectionClosedException extends NatsException
{
}
