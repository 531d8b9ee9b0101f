<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** A request found nobody subscribed to its subject (the server answered 503 at once): nothing ran. */
final class NoRespondersException extends NatsException
{
}
