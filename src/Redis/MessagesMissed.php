<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/**
 * The subscriber's connection was lost and is back, every channel and pattern subscribed again:
 * messages published between $lostAt and $resubscribedAt were not delivered (Redis pub/sub keeps
 * nothing for absent subscribers). Reload whatever the messages would have told.
 */
final class MessagesMissed implements SubscriptionEvent
{
    public function __construct(
        public readonly float $lostAt,
        public readonly float $resubscribedAt,
        public readonly string $reason,
    ) {
    }
}
