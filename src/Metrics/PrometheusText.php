<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * Metric families as Prometheus scrapes them: the text exposition format 0.0.4, or OpenMetrics
 * 1.0.0 when the scraper asks for it (counters then drop the `_total` of their family name,
 * which their samples keep, and the text ends with `# EOF`). Pure.
 */
final class PrometheusText
{
    public const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
    public const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

    private function __construct()
    {
    }

    /** Whether an Accept header prefers OpenMetrics. */
    public static function wantsOpenMetrics(string $accept): bool
    {
        return \str_contains(\strtolower($accept), 'application/openmetrics-text');
    }

    /**
     * Families of one name are written as one (the first one's type and help win; samples add
     * up in order).
     *
     * @param iterable<MetricFamily> $families
     */
    public static function render(iterable $families, bool $openMetrics = false): string
    {
        /** @var array<string, MetricFamily> $byName */
        $byName = [];
        /** @var array<string, list<array{array<string, string>, float|HistogramValue}>> $samples */
        $samples = [];
        foreach ($families as $family) {
            $byName[$family->name] ??= $family;
            foreach ($family->samples as $sample) {
                $samples[$family->name][] = $sample;
            }
        }
        $out = '';
        foreach ($byName as $name => $family) {
            $familyName = $openMetrics && $family->type === MetricType::Counter && \str_ends_with($name, '_total')
                ? \substr($name, 0, -6)
                : $name;
            $out .= '# HELP ' . $familyName . ' ' . \strtr($family->help, ['\\' => '\\\\', "\n" => '\\n']) . "\n";
            $out .= '# TYPE ' . $familyName . ' ' . $family->type->value . "\n";
            foreach ($samples[$name] ?? [] as [$labels, $value]) {
                if ($value instanceof HistogramValue) {
                    foreach ($value->bounds as $i => $bound) {
                        $out .= $name . '_bucket' . self::labels($labels + ['le' => self::number($bound)]) . ' ' . $value->cumulative[$i] . "\n";
                    }
                    $out .= $name . '_bucket' . self::labels($labels + ['le' => '+Inf']) . ' ' . $value->count . "\n";
                    $out .= $name . '_sum' . self::labels($labels) . ' ' . self::number($value->sum) . "\n";
                    $out .= $name . '_count' . self::labels($labels) . ' ' . $value->count . "\n";
                } else {
                    $out .= $name . self::labels($labels) . ' ' . self::number($value) . "\n";
                }
            }
        }

        return $openMetrics ? $out . "# EOF\n" : $out;
    }

    /** @param array<string, string> $labels */
    private static function labels(array $labels): string
    {
        if ($labels === []) {
            return '';
        }
        $parts = [];
        foreach ($labels as $name => $value) {
            $parts[] = $name . '="' . \strtr($value, ['\\' => '\\\\', '"' => '\\"', "\n" => '\\n']) . '"';
        }

        return '{' . \implode(',', $parts) . '}';
    }

    private static function number(float $value): string
    {
        if (\is_nan($value)) {
            return 'NaN';
        }
        if (\is_infinite($value)) {
            return $value > 0 ? '+Inf' : '-Inf';
        }
        if ($value === \floor($value) && \abs($value) < 1e15) {
            return (string) (int) $value;
        }

        return \rtrim(\rtrim(\sprintf('%.9F', $value), '0'), '.');
    }
}
