<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/** A snapshot of a Pool's counters. */
final class PoolStatistics
{
    public function __construct(
        public readonly int $maxSize,
        /** Connections open or being opened. */
        public readonly int $open,
        public readonly int $idle,
        public readonly int $inUse,
        /** Callers waiting for a connection now. */
        public readonly int $waiting,
        public readonly int $acquisitions,
        /** Acquisitions that gave up (timeout, cancellation, too many waiters). */
        public readonly int $timeouts,
        /** Connections closed because they broke, expired or idled too long. */
        public readonly int $discarded,
        /** Seconds callers spent waiting for a connection, in total and at most once. */
        public readonly float $totalWaitTime,
        public readonly float $maxWaitTime,
        /** Connections given back inside a transaction nobody ended (a raw BEGIN): rolled back or closed by the client. */
        public readonly int $returnedInTransaction = 0,
    ) {
    }
}
