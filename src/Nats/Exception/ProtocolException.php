<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** A frame from the server broke the protocol (malformed, too long): the connection is dropped and reconnected, never left hanging. */
final class ProtocolException extends NatsException
{
}
