<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Psr\Log\LoggerInterface;

/**
 * When a worker group may start its next worker: at once after a worker that crashed having
 * served, after RestartPolicy's growing delay after one that died before serving, a second
 * after a failed fork — and what the log says about it: each crash with its back-off, the crash
 * loop once when it begins and once when a worker serves again.
 */
final class WorkerReplacements
{
    private float $nextSpawnAt = 0.0;

    public function __construct(
        private readonly WorkerKind $kind,
        private readonly RestartPolicy $restarts,
        private readonly LoggerInterface $logger,
    ) {
    }

    public function isDue(float $now): bool
    {
        return $now >= $this->nextSpawnAt;
    }

    /** No worker starts before $at (a socket pair or a fork failed). */
    public function holdUntil(float $at): void
    {
        $this->nextSpawnAt = $at;
    }

    /** A worker reported (its stats, or ready): once it serves, the crash loop (if any) is over. */
    public function workerReported(WorkerHandle $worker): void
    {
        if (!$this->kind->hasServed($worker)) {
            return;
        }
        $wasInCrashLoop = $this->restarts->inCrashLoop();
        $this->restarts->workerServed();
        if ($wasInCrashLoop) {
            $this->logger->notice($this->kind->nounAtStart() . ' {pid} serves: the crash loop is over', ['pid' => $worker->pid]);
        }
    }

    /**
     * A worker died the master did not end, and its death ends no start and no reload: its
     * replacement is delayed as RestartPolicy says.
     *
     * @param string $how how it ended ("was killed by signal 9")
     * @param string $reason what the crash loop line names as the last death
     */
    public function workerCrashed(WorkerHandle $worker, string $how, string $reason, float $now): void
    {
        $wasInCrashLoop = $this->restarts->inCrashLoop();
        $delay = $this->restarts->workerDied($now - $worker->started, $worker->readyAt !== null, $this->kind->hasServed($worker));
        if ($this->restarts->inCrashLoop() && !$wasInCrashLoop) {
            // Once per crash loop, not per death: the warnings below give each back-off.
            $this->logger->error('crash loop: {count} ' . $this->kind->noun() . 's in a row died within {s} s of starting, before serving; replacements keep starting, at most {max} s apart, until one serves. The last: {reason}', [
                'count' => $this->restarts->quickDeathsInARow(), 's' => $this->restarts->quickDeathSeconds, 'max' => $this->restarts->maxDelay, 'reason' => $reason,
            ]);
        }
        $this->nextSpawnAt = \max($this->nextSpawnAt, $now + $delay);
        $noun = $this->kind->nounAtStart();
        $this->logger->warning($delay > 0.0 ? $noun . ' {pid} {how}; a replacement starts in {delay} s' : $noun . ' {pid} {how}; starting a replacement', [
            'pid' => $worker->pid, 'how' => $worker->bootError !== null ? 'could not boot: ' . $worker->bootError : $how, 'delay' => \round($delay, 2),
        ]);
    }
}
