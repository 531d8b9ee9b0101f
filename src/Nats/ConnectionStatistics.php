<?php

declare(strict_types=1);

namespace Bobbin\Nats;

/** A snapshot of one connection's counters since it was made. */
final readonly class ConnectionStatistics
{
    public function __construct(
        public ConnectionState $state,
        public int $inMessages,
        public int $inBytes,
        public int $outMessages,
        public int $outBytes,
        public int $reconnects,
        /** Messages dropped by subscriptions that could not keep up. */
        public int $dropped,
        public int $subscriptions,
        /** Requests and inboxes waiting for answers. */
        public int $awaitingReplies,
        /** Bytes queued for the socket, not written yet. */
        public int $pendingBytes,
    ) {
    }
}
