<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/** A published message: its channel, its payload, the pattern it matched (PSUBSCRIBE), or a shard channel's (SSUBSCRIBE). */
final class Message implements SubscriptionEvent
{
    public function __construct(
        public readonly string $channel,
        public readonly string $payload,
        public readonly ?string $pattern = null,
        public readonly bool $shard = false,
    ) {
    }
}
