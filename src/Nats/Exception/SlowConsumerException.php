<?php

declare(strict_types=1);

namespace Bobbin\Nats\Exception;

/**
 * Reported to the connection's error handler (never thrown at a publisher): a subscription held
 * as many unread messages as its limits allow and dropped new ones. The connection and its other
 * subscriptions go on; Subscription::dropped() counts what was lost.
 */
final class SlowConsumerException extends NatsException
{
}
