<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * One metric with its samples, as Prometheus names them: a counter's or gauge's samples are
 * labels => value; a histogram's value is its cumulative bucket counts (by upper bound, the last
 * being +Inf), sum and count.
 *
 * A family marked $perProcess keeps one series per process when the master merges the workers'
 * families (a `worker` label with the pid: memory, loop lag); the others are summed (requests,
 * bytes, connections).
 */
final readonly class MetricFamily
{
    /**
     * @param list<array{array<string, string>, float|HistogramValue}> $samples
     */
    public function __construct(
        public string $name,
        public MetricType $type,
        public string $help,
        public array $samples,
        public bool $perProcess = false,
    ) {
    }

    /** @return array<string, mixed> for the worker → master message */
    public function toArray(): array
    {
        $samples = [];
        foreach ($this->samples as [$labels, $value]) {
            $samples[] = [$labels, $value instanceof HistogramValue ? $value->toArray() : $value];
        }

        return ['name' => $this->name, 'type' => $this->type->value, 'help' => $this->help, 'samples' => $samples, 'perProcess' => $this->perProcess];
    }

    /** @param array<array-key, mixed> $data */
    public static function fromArray(array $data): ?self
    {
        $type = MetricType::tryFrom((string) ($data['type'] ?? ''));
        if ($type === null || !\is_string($data['name'] ?? null) || !\is_array($data['samples'] ?? null)) {
            return null;
        }
        $samples = [];
        foreach ($data['samples'] as $sample) {
            if (!\is_array($sample) || !\is_array($sample[0] ?? null)) {
                continue;
            }
            $labels = \array_map('strval', $sample[0]);
            $value = $sample[1] ?? 0;
            if ($type === MetricType::Histogram) {
                $histogram = \is_array($value) ? HistogramValue::fromArray($value) : null;
                if ($histogram !== null) {
                    $samples[] = [$labels, $histogram];
                }
            } elseif (\is_int($value) || \is_float($value)) {
                $samples[] = [$labels, (float) $value];
            }
        }

        return new self($data['name'], $type, (string) ($data['help'] ?? ''), $samples, (bool) ($data['perProcess'] ?? false));
    }
}
