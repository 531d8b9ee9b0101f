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
        /** memory of the server's processes at the end of the window, each page once (ProcessTree::residentKb()) */
        public readonly ?int $residentKb = null,
    ) {
    }

    /**
     * The metric $name holding residentKb in MiB, or nothing when it could not be read (not
     * root): an absent figure, never a zero.
     *
     * @return array<string, array{float, string}>
     */
    public function residentMetric(string $name): array
    {
        return $this->residentKb === null ? [] : [$name => [$this->residentKb / 1024, 'MiB']];
    }
}
