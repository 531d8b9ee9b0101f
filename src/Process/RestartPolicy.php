<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * Decides how soon a dead worker is replaced. A worker that served (a request, a task) or lived
 * long is replaced at once: what killed it was a request's doing (a fatal error, exit(), an
 * exhausted memory_limit), and PHP-FPM answers such a request with 500 and keeps serving, so
 * must we. Only workers that die before they serve — soon after starting, or before they were
 * ready — are replaced after a growing delay; crashLoopDeaths of those in a row are a crash loop,
 * which is reported and retried at the capped delay for as long as it lasts: the master never
 * gives up while it can fork (a database that comes back, a file that is fixed, ends it).
 */
final class RestartPolicy
{
    private int $quickDeaths = 0;

    public function __construct(
        public readonly float $quickDeathSeconds = 2.0,
        public readonly int $crashLoopDeaths = 5,
        public readonly float $firstDelay = 0.1,
        public readonly float $maxDelay = 5.0,
    ) {
    }

    /**
     * @param float $lifetime seconds between the fork and the death
     * @param bool $served the worker had started serving (a request, a task) before it died
     * @return float seconds to wait before starting the replacement
     */
    public function workerDied(float $lifetime, bool $wasReady, bool $served = false): float
    {
        if ($served || ($wasReady && $lifetime >= $this->quickDeathSeconds)) {
            $this->quickDeaths = 0;

            return 0.0;
        }
        $this->quickDeaths++;

        return \min($this->maxDelay, $this->firstDelay * 2 ** ($this->quickDeaths - 1));
    }

    /** A worker is serving: whatever made its predecessors die before they served is over. */
    public function workerServed(): void
    {
        $this->quickDeaths = 0;
    }

    public function inCrashLoop(): bool
    {
        return $this->quickDeaths >= $this->crashLoopDeaths;
    }

    public function quickDeathsInARow(): int
    {
        return $this->quickDeaths;
    }
}
