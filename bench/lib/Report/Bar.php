<?php

declare(strict_types=1);

namespace Bobbin\Bench\Report;

/** One bar of a chart: a median with its min–max whisker. */
final class Bar
{
    public function __construct(
        public readonly string $label,
        public readonly float $median,
        public readonly float $min,
        public readonly float $max,
        public readonly string $color = '#9aa5b1',
    ) {
    }
}
