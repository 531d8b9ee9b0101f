<?php

declare(strict_types=1);

namespace Bobbin\Redis;

/**
 * A published message: its channel, its payload, the pattern it matched (PSUBSCRIBE), or a shard
 * channel's (SSUBSCRIBE).
 *
 * Immutable: the properties are documented @readonly (PHPStan reports a write to them) rather
 * than declared readonly, because PHP 8.2's JIT writes a readonly property through a slow helper
 * and a subscriber builds one Message per message received (bench/redis/subscriber.php,
 * docs/REDIS.md). Reading them is the same as before.
 */
final class Message implements SubscriptionEvent
{
    public function __construct(
        /** @readonly */
        public string $channel,
        /** @readonly */
        public string $payload,
        /** @readonly */
        public ?string $pattern = null,
        /** @readonly */
        public bool $shard = false,
    ) {
    }
}
