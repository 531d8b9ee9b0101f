<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Thrown into an idle keep-alive connection's fiber to end it: the connection gives its fiber up
 * and a loop watch starts a new one when the client sends again (Connection::park()).
 *
 * @internal
 */
final class ConnectionParkedException extends \RuntimeException
{
}
