<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * The master's view of its workers' metrics: families of one name merged, series with the same
 * labels summed (counters, gauges such as open connections, histograms bucket by bucket); a
 * family marked perProcess keeps each process's series apart under a `worker` label. Pure.
 */
final class Aggregation
{
    private function __construct()
    {
    }

    /**
     * @param array<int|string, list<MetricFamily>> $byWorker worker id (pid) => its families
     * @return list<MetricFamily>
     */
    public static function merge(array $byWorker): array
    {
        /** @var array<string, array{MetricFamily, array<string, array{array<string, string>, float|HistogramValue}>}> $merged */
        $merged = [];
        foreach ($byWorker as $worker => $families) {
            foreach ($families as $family) {
                $merged[$family->name] ??= [$family, []];
                foreach ($family->samples as [$labels, $value]) {
                    if ($family->perProcess) {
                        $labels += ['worker' => (string) $worker];
                    }
                    \ksort($labels);
                    $key = \serialize($labels);
                    $existing = $merged[$family->name][1][$key][1] ?? null;
                    if ($existing === null) {
                        $merged[$family->name][1][$key] = [$labels, $value];
                    } elseif ($existing instanceof HistogramValue && $value instanceof HistogramValue) {
                        $merged[$family->name][1][$key] = [$labels, $existing->plus($value)];
                    } elseif (!$existing instanceof HistogramValue && !$value instanceof HistogramValue) {
                        $merged[$family->name][1][$key] = [$labels, $existing + $value];
                    }
                }
            }
        }
        $out = [];
        foreach ($merged as [$family, $samples]) {
            $out[] = new MetricFamily($family->name, $family->type, $family->help, \array_values($samples), $family->perProcess);
        }

        return $out;
    }
}
