<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/** Sizing and time bounds of a Pool, whatever it holds. */
final class PoolSettings
{
    /**
     * @param int $minSize connections the idle sweeper keeps open
     * @param int $maxSize most connections open at once (lazily opened up to this)
     * @param float $acquireTimeout seconds a caller waits for a free connection before PoolTimeoutException
     * @param int $maxWaiters callers allowed to wait at once; one more fails at once
     * @param float $idleTimeout an idle connection above minSize is closed after this many seconds
     * @param float $maxLifetime a connection is closed (when idle) after this many seconds
     * @param float $checkAfterIdle a connection idle longer than this is pinged before reuse
     */
    public function __construct(
        public readonly int $minSize = 0,
        public readonly int $maxSize = 32,
        public readonly float $acquireTimeout = 5.0,
        public readonly int $maxWaiters = 10_000,
        public readonly float $idleTimeout = 60.0,
        public readonly float $maxLifetime = 3600.0,
        public readonly float $checkAfterIdle = 5.0,
    ) {
        if ($maxSize < 1) {
            throw new \ValueError('A pool needs a max size of at least 1');
        }
        if ($minSize < 0 || $minSize > $maxSize) {
            throw new \ValueError('The min size must be between 0 and the max size');
        }
        if ($acquireTimeout <= 0.0 || $idleTimeout <= 0.0 || $maxLifetime <= 0.0 || $checkAfterIdle < 0.0) {
            throw new \ValueError('Pool timeouts must be positive');
        }
        if ($maxWaiters < 0) {
            throw new \ValueError('The number of waiters cannot be negative');
        }
    }
}
