<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** The message is larger than the server's max_payload (its INFO says how large one may be): nothing was sent. */
final class PayloadTooLargeException extends NatsException
{
}
