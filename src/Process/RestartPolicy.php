<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * Decides how soon a dead worker is replaced. A worker that lived long is replaced at once;
 * workers that die soon after starting are replaced after a growing delay, and too many such
 * deaths in a row are a crash loop that the master reports instead of spinning.
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
     * @return float|null seconds to wait before starting the replacement; null for a crash loop
     */
    public function workerDied(float $lifetime, bool $wasReady): ?float
    {
        if ($wasReady && $lifetime >= $this->quickDeathSeconds) {
            $this->quickDeaths = 0;

            return 0.0;
        }
        $this->quickDeaths++;
        if ($this->quickDeaths >= $this->crashLoopDeaths) {
            return null;
        }

        return \min($this->maxDelay, $this->firstDelay * 2 ** ($this->quickDeaths - 1));
    }

    public function quickDeathsInARow(): int
    {
        return $this->quickDeaths;
    }
}
