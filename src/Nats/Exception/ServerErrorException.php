<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** The server answered -ERR (a permissions violation, a payload over max_payload…). */
final class ServerErrorException extends NatsException
{
}
