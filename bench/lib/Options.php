<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** What one invocation of bench/run was asked to do. */
final class Options
{
    /**
     * @param list<string> $experiments names from the experiment table, in run order
     * @param list<PeerSpec> $peers other servers implementing the aircraft contract
     */
    public function __construct(
        public readonly array $experiments,
        public readonly bool $quick,
        public readonly int $repetitions,
        public readonly int $durationSeconds,
        public readonly int $warmupSeconds,
        public readonly int $sweepSeconds,
        public readonly float $noiseThreshold,
        public readonly int $noiseMaxWaitSeconds,
        public readonly array $peers,
        public readonly string $root,
        public readonly bool $writeReport,
    ) {
    }

    /** @return list<int> pm.max_children values tried for the CRUD experiment */
    public function crudChildren(): array
    {
        return $this->quick ? [16] : [4, 8, 16, 32];
    }

    /** @return list<int> pm.max_children values tried for hello-world */
    public function helloChildren(): array
    {
        return $this->quick ? [4] : [2, 4, 8, 16];
    }
}
