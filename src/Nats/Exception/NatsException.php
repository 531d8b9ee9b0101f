<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** Something went wrong talking to NATS: the base of every Bobbin\Nats exception. */
class NatsException extends \RuntimeException
{
}
