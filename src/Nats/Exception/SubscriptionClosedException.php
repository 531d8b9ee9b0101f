<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/** The subscription (or inbox) ended — unsubscribed, its message limit reached, or its connection closed — and every buffered message was read. */
final class SubscriptionClosedException extends NatsException
{
}
