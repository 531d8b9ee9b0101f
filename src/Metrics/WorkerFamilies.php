<?php

declare(strict_types=1);

namespace Bobbin\Metrics;

/**
 * The master's record of its workers' metric families, so that no total it reports goes
 * backwards while workers come and go: the last families each live worker reported (a scrape's
 * answer, or its final report as it ends), and the counters and histograms of the workers that
 * have ended, summed. Each worker is in exactly one of the two, so nothing is counted twice.
 *
 * When a worker ends, its gauges are dropped (they describe a process that is gone), and so are
 * its per-process series (`worker` label): such a series ends with its process, as a target's
 * series ends in Prometheus. Folding it into a series without the label would keep a raw sum up
 * but make rate() and increase() count the worker's whole life a second time, as that series'
 * jump. Pure.
 */
final class WorkerFamilies
{
    /** @var array<int, list<MetricFamily>> pid => the last families it reported */
    private array $live = [];
    /** @var list<MetricFamily> the ended workers' counters and histograms, summed */
    private array $ended = [];

    /**
     * A live worker's figures as of now: they replace what it reported before (they are totals
     * since it started, never increments).
     *
     * @param list<MetricFamily> $families
     */
    public function reported(int $pid, array $families): void
    {
        $this->live[$pid] = $families;
    }

    /** The worker is gone: its last figures move into the ended workers' sum. */
    public function ended(int $pid): void
    {
        $families = $this->live[$pid] ?? null;
        unset($this->live[$pid]);
        if ($families === null) {
            return;
        }
        $kept = [];
        foreach ($families as $family) {
            if ($family->type !== MetricType::Gauge && !$family->perProcess) {
                $kept[] = $family;
            }
        }
        $this->ended = Aggregation::merge([$this->ended, $kept]);
    }

    /**
     * Every live worker's families and the ended workers' sum, merged (Aggregation).
     *
     * @return list<MetricFamily>
     */
    public function merged(): array
    {
        $byWorker = $this->live;
        // The key is no pid: the ended sum holds no per-process family that would carry it as a label.
        $byWorker['ended'] = $this->ended;

        return Aggregation::merge($byWorker);
    }
}
