<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

use Bobbin\Bench\CommandResult;

/** A load generator's output together with what the server spent meanwhile. */
final class Metered
{
    public function __construct(
        public readonly CommandResult $load,
        public readonly float $serverCpuSeconds,
        public readonly int $peakPssKb,
        public readonly float $loadCpuSeconds = 0.0,
        /** @var array<int, float> busy share (0..1) of each CPU over the window, from /proc/stat */
        public readonly array $cpuBusy = [],
    ) {
    }
}
