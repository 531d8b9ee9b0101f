<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** One measured number: one metric of one variant in one repetition. */
final class Sample
{
    public const STAGE_MEASURE = 'measure';
    public const STAGE_SWEEP = 'sweep';

    public function __construct(
        public readonly string $experiment,
        public readonly string $variant,
        public readonly string $metric,
        public readonly string $unit,
        public readonly int $repetition,
        public readonly float $value,
        public readonly bool $noisy,
        public readonly string $stage = self::STAGE_MEASURE,
    ) {
    }
}
