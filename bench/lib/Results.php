<?php

declare(strict_types=1);

namespace Bobbin\Bench;

/** Everything one run of bench/run measured and noted; ratios are only ever taken in here. */
final class Results
{
    /** @var list<Sample> */
    private array $samples = [];
    /** @var array<string, list<string>> experiment => notes */
    private array $notes = [];
    /** @var array<string, list<string>> experiment => commands run */
    private array $commands = [];

    public function __construct(public readonly string $runId)
    {
    }

    public function add(Sample $sample): void
    {
        $this->samples[] = $sample;
    }

    public function note(string $experiment, string $note): void
    {
        if (!\in_array($note, $this->notes[$experiment] ?? [], true)) {
            $this->notes[$experiment][] = $note;
        }
    }

    public function command(string $experiment, string $command): void
    {
        if (!\in_array($command, $this->commands[$experiment] ?? [], true)) {
            $this->commands[$experiment][] = $command;
        }
    }

    /** @return list<string> */
    public function notes(string $experiment): array
    {
        return $this->notes[$experiment] ?? [];
    }

    /** @return list<string> */
    public function commands(string $experiment): array
    {
        return $this->commands[$experiment] ?? [];
    }

    public function summary(string $experiment, string $variant, string $metric, string $stage = Sample::STAGE_MEASURE): ?Summary
    {
        $matching = \array_values(\array_filter(
            $this->samples,
            static fn (Sample $s): bool => $s->experiment === $experiment && $s->variant === $variant
                && $s->metric === $metric && $s->stage === $stage,
        ));

        return $matching === [] ? null : Summary::of($matching);
    }

    /** @return list<string> variants of an experiment in the order they were measured */
    public function variants(string $experiment, string $stage = Sample::STAGE_MEASURE): array
    {
        $variants = [];
        foreach ($this->samples as $s) {
            if ($s->experiment === $experiment && $s->stage === $stage) {
                $variants[$s->variant] = true;
            }
        }

        return \array_keys($variants);
    }

    /**
     * The median over repetitions of $variantA / $variantB taken within each repetition: a ratio
     * of runs seconds apart (repeatInTurns()), so a neighbour's load that came and went weighs
     * on both sides of it. null when no repetition has both.
     */
    public function roundRatio(string $experiment, string $variantA, string $variantB, string $metric): ?float
    {
        $byRep = static function (array $samples, string $variant) use ($experiment, $metric): array {
            $values = [];
            foreach ($samples as $s) {
                if ($s->experiment === $experiment && $s->variant === $variant && $s->metric === $metric && $s->stage === Sample::STAGE_MEASURE) {
                    $values[$s->repetition] = $s->value;
                }
            }

            return $values;
        };
        $a = $byRep($this->samples, $variantA);
        $b = $byRep($this->samples, $variantB);
        $ratios = [];
        foreach ($a as $rep => $value) {
            if (isset($b[$rep]) && $b[$rep] != 0.0) {
                $ratios[] = $value / $b[$rep];
            }
        }
        if ($ratios === []) {
            return null;
        }
        \sort($ratios);
        $n = \count($ratios);

        return $n % 2 === 1 ? $ratios[\intdiv($n, 2)] : ($ratios[$n / 2 - 1] + $ratios[$n / 2]) / 2;
    }

    /** Ratio of two medians of this run, or null when either is missing or zero. */
    public function ratio(string $experiment, string $variantA, string $variantB, string $metric): ?float
    {
        $a = $this->summary($experiment, $variantA, $metric);
        $b = $this->summary($experiment, $variantB, $metric);

        return $a === null || $b === null || $b->median == 0.0 ? null : $a->median / $b->median;
    }

    public function writeCsv(string $path): void
    {
        $out = \fopen($path, 'w');
        if ($out === false) {
            throw new \RuntimeException("Cannot write $path");
        }
        \fputcsv($out, ['run_id', 'experiment', 'stage', 'variant', 'metric', 'unit', 'repetition', 'value', 'noisy'], ',', '"', '');
        foreach ($this->samples as $s) {
            \fputcsv($out, [$this->runId, $s->experiment, $s->stage, $s->variant, $s->metric, $s->unit,
                $s->repetition, \round($s->value, 4), $s->noisy ? 1 : 0], ',', '"', '');
        }
        \fclose($out);
    }
}
