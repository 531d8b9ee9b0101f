<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

/** One NOTIFY received on a LISTENing connection. */
final class Notification
{
    public function __construct(
        public readonly string $channel,
        public readonly string $payload,
        public readonly int $senderPid,
    ) {
    }
}
