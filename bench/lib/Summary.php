<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Median with min–max over the repetitions of one metric of one variant. */
final class Summary
{
    private function __construct(
        public readonly float $median,
        public readonly float $min,
        public readonly float $max,
        public readonly int $count,
        public readonly bool $noisy,
        public readonly string $unit,
    ) {
    }

    /** @param non-empty-list<Sample> $samples */
    public static function of(array $samples): self
    {
        $values = \array_map(static fn (Sample $s): float => $s->value, $samples);
        \sort($values);
        $n = \count($values);
        $median = self::median($values);
        $noisy = \array_filter($samples, static fn (Sample $s): bool => $s->noisy) !== [];

        return new self($median, $values[0], $values[$n - 1], $n, $noisy, $samples[0]->unit);
    }

    /** @param non-empty-list<int|float> $values */
    public static function median(array $values): float
    {
        \sort($values);
        $n = \count($values);

        return (float) ($n % 2 === 1 ? $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2);
    }

    public function format(): string
    {
        $text = self::number($this->median);
        if ($this->count > 1) {
            $text .= ' (' . self::number($this->min) . '–' . self::number($this->max) . ')';
        }

        return $text . ($this->noisy ? ' ⚠' : '');
    }

    public static function number(float $value): string
    {
        $abs = \abs($value);
        if ($value == \floor($value) && $abs < 1e12) {
            return \number_format($value, 0, '.', ',');
        }
        $decimals = match (true) {
            $abs >= 100 => 0,
            $abs >= 10 => 1,
            $abs >= 1 => 2,
            default => 3,
        };

        return \number_format($value, $decimals, '.', ',');
    }
}
