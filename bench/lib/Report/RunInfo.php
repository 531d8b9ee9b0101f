<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

/** Facts about one run of bench/run that the report prints besides the measurements. */
final class RunInfo
{
    /**
     * @param array<string, string> $machine
     * @param array<string, string> $databaseSettings
     * @param array<string, string> $experimentTitles name => title, of the experiments that ran
     */
    public function __construct(
        public readonly string $commandLine,
        public readonly string $startedAt,
        public readonly float $seconds,
        public readonly array $machine,
        public readonly array $databaseSettings,
        public readonly string $databaseTuning,
        public readonly array $experimentTitles,
        public readonly int $repetitions,
        public readonly int $durationSeconds,
        public readonly int $warmupSeconds,
        public readonly int $sweepSeconds,
        public readonly float $noiseThreshold,
    ) {
    }
}
