<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/** A histogram's state: cumulative counts per upper bound (ascending, +Inf last), sum and count. */
final readonly class HistogramValue
{
    /**
     * @param list<float> $bounds upper bounds, ascending, without +Inf
     * @param list<int> $cumulative one count per bound, then +Inf's (= $count)
     */
    public function __construct(
        public array $bounds,
        public array $cumulative,
        public float $sum,
        public int $count,
    ) {
    }

    public function plus(self $other): self
    {
        if ($other->bounds !== $this->bounds) {
            return $this; // not the same histogram: never mixed
        }
        $cumulative = [];
        foreach ($this->cumulative as $i => $n) {
            $cumulative[] = $n + ($other->cumulative[$i] ?? 0);
        }

        return new self($this->bounds, $cumulative, $this->sum + $other->sum, $this->count + $other->count);
    }

    /** The value below which $q (0–1) of the observations fall, interpolated within a bucket. */
    public function quantile(float $q): float
    {
        if ($this->count === 0) {
            return 0.0;
        }
        $rank = $q * $this->count;
        $previousBound = 0.0;
        $previousCount = 0;
        foreach ($this->bounds as $i => $bound) {
            $count = $this->cumulative[$i];
            if ($count >= $rank) {
                $inBucket = $count - $previousCount;

                return $inBucket === 0 ? $bound : $previousBound + ($bound - $previousBound) * ($rank - $previousCount) / $inBucket;
            }
            [$previousBound, $previousCount] = [$bound, $count];
        }

        return $previousBound; // in +Inf: the highest finite bound is all that can be said
    }

    /** @return array{bounds: list<float>, cumulative: list<int>, sum: float, count: int} */
    public function toArray(): array
    {
        return ['bounds' => $this->bounds, 'cumulative' => $this->cumulative, 'sum' => $this->sum, 'count' => $this->count];
    }

    /** @param array<array-key, mixed> $data */
    public static function fromArray(array $data): ?self
    {
        if (!\is_array($data['bounds'] ?? null) || !\is_array($data['cumulative'] ?? null)
            || \count($data['cumulative']) !== \count($data['bounds']) + 1) {
            return null;
        }

        return new self(
            \array_values(\array_map('floatval', $data['bounds'])),
            \array_values(\array_map('intval', $data['cumulative'])),
            (float) ($data['sum'] ?? 0.0),
            (int) ($data['count'] ?? 0),
        );
    }
}
