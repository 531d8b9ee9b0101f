<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Process\Admin\MasterMetrics;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * A worker group's generations and their reload on SIGHUP: a new generation starts beside the
 * serving one, which drains once every new worker is ready (zero downtime); a new worker that
 * dies before it serves ends the reload, and the serving workers stay. One reload at a time.
 * Apart from WorkerGroup, which asks it which generation serves and tells it of workers that got
 * ready or died; spawning and draining stay the group's (the closures).
 */
final class Reload
{
    /** The generation that serves. */
    private int $serving = 1;
    /** The generation a reload is starting, until all of it is ready (or one of it fails). */
    private ?int $pending = null;

    /**
     * @param Closure(int): void $spawn starts one worker of the given generation
     * @param Closure(WorkerHandle, string): void $drain ends a worker gracefully, with the reason label of bobbin_worker_exits_total
     */
    public function __construct(
        private readonly WorkerKind $kind,
        private readonly WorkerRoster $workers,
        private readonly int $size,
        private readonly LoggerInterface $logger,
        private readonly ?MasterMetrics $metrics,
        private readonly Closure $spawn,
        private readonly Closure $drain,
    ) {
    }

    public function serving(): int
    {
        return $this->serving;
    }

    public function pending(): ?int
    {
        return $this->pending;
    }

    /** SIGHUP: starts the next generation, unless the group is not running or a reload is under way. */
    public function start(MasterPhase $phase): void
    {
        if ($phase !== MasterPhase::Running) {
            $this->logger->notice($this->kind->reloadWords(ReloadStep::NotRunning), ['phase' => \strtolower($phase->name)]);

            return;
        }
        if ($this->pending !== null) {
            $this->logger->notice($this->kind->reloadWords(ReloadStep::UnderWay));

            return;
        }
        $generation = $this->pending = $this->serving + 1;
        if ($this->metrics !== null) {
            $this->metrics->reloads++;
        }
        $this->logger->info($this->kind->reloadWords(ReloadStep::Starting), ['count' => $this->size]);
        for ($i = 0; $i < $this->size; $i++) {
            ($this->spawn)($generation);
        }
    }

    /**
     * A worker of the generation being started is ready: when it is the last one, the new
     * generation serves and the old one drains.
     */
    public function workerReady(): void
    {
        if ($this->pending === null || $this->workers->countReady($this->pending) !== $this->size) {
            return;
        }
        $new = $this->pending;
        $old = 0;
        foreach ($this->workers->all() as $worker) {
            if ($worker->generation < $new && $worker->state !== WorkerState::Draining) {
                ($this->drain)($worker, 'reloaded');
                $old++;
            }
        }
        $this->serving = $new;
        $this->pending = null;
        $this->logger->info($this->kind->reloadWords(ReloadStep::Complete), ['count' => $this->size, 'old' => $old]);
    }

    /** A worker of the generation being started died before it served: the reload fails, the serving workers stay. */
    public function abort(string $reason): void
    {
        $this->logger->error($this->kind->reloadWords(ReloadStep::Failed), ['reason' => $reason]);
        foreach ($this->workers->all() as $worker) {
            if ($worker->generation === $this->pending && $worker->state !== WorkerState::Draining) {
                ($this->drain)($worker, 'reload_aborted');
            }
        }
        $this->pending = null;
    }

    /** A stop: a reload under way is given up (its workers drain with the others). */
    public function forget(): void
    {
        $this->pending = null;
    }
}
