<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * A histogram being recorded: one count per bucket (not cumulative, so an observation is one
 * increment), turned into a HistogramValue when collected.
 */
final class Histogram
{
    /** Seconds, for request durations and waits: 1 ms to 10 s. */
    public const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

    /** @var array<int, int> per bucket, the last one +Inf */
    private array $counts;
    // Untyped, typed by @var: written per observation, per request (docs/ASYNC.md, Rules).
    /** @var float */
    private $sum = 0.0;
    /** @var int */
    private $count = 0;
    private readonly float $firstBound;

    /** @param list<float> $bounds upper bounds, ascending */
    public function __construct(private readonly array $bounds = self::SECONDS)
    {
        $this->counts = \array_fill(0, \count($bounds) + 1, 0);
        $this->firstBound = $bounds[0] ?? \INF;
    }

    public function observe(float $value): void
    {
        // The first bucket without the loop, which is a JIT trace of its own (docs/ASYNC.md, Rules):
        // a request's duration, observed per request, is usually there.
        if ($value <= $this->firstBound) {
            $this->counts[0]++;
        } else {
            $this->counts[$this->bucketAbove($value)]++;
        }
        $this->sum += $value;
        $this->count++;
    }

    private function bucketAbove(float $value): int
    {
        $i = 0;
        foreach ($this->bounds as $bound) {
            if ($value <= $bound) {
                break;
            }
            $i++;
        }

        return $i;
    }

    public function value(): HistogramValue
    {
        $cumulative = [];
        $running = 0;
        foreach ($this->counts as $n) {
            $running += $n;
            $cumulative[] = $running;
        }

        return new HistogramValue($this->bounds, $cumulative, $this->sum, $this->count);
    }
}
