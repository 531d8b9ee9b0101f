<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Process\Admin\MasterMetrics;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * Keeps a group of forked workers of one kind (HTTP workers for the master, job workers for
 * JobSupervisor) at its size: starts the first generation, replaces the dead as RestartPolicy
 * says, reloads with the new generation ready first, drains the workers that retire once their
 * replacement is ready, and stops them all with a deadline. Never waits and never forks itself:
 * its owner calls handle() for every message a worker sends, reaped() for every child it reaps
 * and poll() every turn of its loop, and gives it the fork (a closure) that makes a worker.
 *
 * Its decisions are the same for both kinds; WorkerKind says what "has served" means and how
 * the log names them.
 */
final class WorkerGroup
{
    private readonly WorkerRoster $workers;
    private readonly Reload $reload;
    private readonly WorkerReplacements $replacements;
    private MasterPhase $phase = MasterPhase::Starting;
    private float $stopDeadline = \INF;
    private ?MasterFailedException $failure = null;
    private bool $changed = true;
    /** Running without workers until wake() (job workers started at the first task). */
    private bool $dormant = false;

    /**
     * @param Closure(int, WorkerRoster): ?WorkerHandle $fork forks one worker of the given generation (the roster: its siblings, whose channels the child must close); null when the fork failed (retried in 1 s)
     * @param ?Closure(): void $onRunning called once, when the whole first generation is ready
     */
    public function __construct(
        private readonly WorkerKind $kind,
        private readonly int $size,
        private readonly float $bootTimeout,
        private readonly Closure $fork,
        private readonly LoggerInterface $logger,
        RestartPolicy $restarts,
        private readonly ?MasterMetrics $metrics = null,
        private readonly ?Closure $onRunning = null,
    ) {
        $this->workers = new WorkerRoster();
        $this->replacements = new WorkerReplacements($kind, $restarts, $logger);
        $this->reload = new Reload($kind, $this->workers, $size, $logger, $metrics, $this->spawn(...), $this->drain(...));
    }

    public function workers(): WorkerRoster
    {
        return $this->workers;
    }

    public function phase(): MasterPhase
    {
        return $this->phase;
    }

    /** The generation that serves. */
    public function generation(): int
    {
        return $this->reload->serving();
    }

    public function isReloading(): bool
    {
        return $this->reload->pending() !== null;
    }

    /** Forks the first generation. */
    public function start(): void
    {
        for ($i = 0; $i < $this->size; $i++) {
            $this->spawn($this->reload->serving());
        }
    }

    /** Counts as running with no worker forked until wake(): the group's work waits in a queue its workers will read. */
    public function startDormant(): void
    {
        $this->dormant = true;
        $this->phase = MasterPhase::Running;
    }

    public function isDormant(): bool
    {
        return $this->dormant;
    }

    /** Forks the workers of a dormant group, and keeps them from now on as any other. */
    public function wake(float $now): void
    {
        $this->dormant = false;
        $this->replaceMissingWorkers($now);
    }

    /** What a worker said. @return bool whether the message was one of the group's (else it is its owner's) */
    public function handle(WorkerHandle $worker, WorkerMessage $message): bool
    {
        switch ($message->type) {
            case WorkerMessage::READY:
                $this->workerReady($worker);

                return true;
            case WorkerMessage::BOOT_FAILED:
                $worker->bootError = $message->string('message', 'the ' . $this->kind->noun() . ' could not boot');
                $worker->bootExitCode = $message->int('exitCode', 1) === 2 ? 2 : 1;

                return true;
            case WorkerMessage::STATS:
                $worker->stats = WorkerStats::fromMessage($message, $worker->pid, $worker->started);
                $this->changed = true;
                $this->replacements->workerReported($worker);

                return true;
            case WorkerMessage::EXITING:
                if ($worker->state === WorkerState::Ready || $worker->state === WorkerState::Retiring) {
                    // Not a crash: no restart delay, no warning; poll() starts another.
                    $worker->state = WorkerState::Draining;
                    $worker->endReason = 'ended';
                    $this->changed = true;
                    $this->logger->debug($this->kind->nounAtStart() . ' {pid} ends ({reason}); starting its replacement', [
                        'pid' => $worker->pid, 'reason' => $message->string('reason', 'asked to'),
                    ]);
                }

                return true;
            case WorkerMessage::RETIRING:
                if ($worker->state === WorkerState::Ready && $this->phase === MasterPhase::Running) {
                    $worker->state = WorkerState::Retiring;
                    $this->changed = true;
                    $this->logger->info($this->kind->nounAtStart() . ' {pid} retires ({reason}); starting its replacement', [
                        'pid' => $worker->pid, 'reason' => $message->string('reason', 'asked to'),
                    ]);
                }

                return true;
        }

        return false;
    }

    /**
     * A child was reaped: if it was one of the group's, its death is judged (expected, a failed
     * start, a failed reload, a crash to replace) and its handle returned.
     *
     * @param Closure(WorkerHandle, WorkerMessage): void $handle reads what it sent last (its final stats)
     */
    public function reaped(int $pid, int $status, Closure $handle): ?WorkerHandle
    {
        $worker = $this->workers->get($pid);
        if ($worker === null) {
            return null;
        }
        foreach ($worker->receive() as $message) {
            $handle($worker, $message);
        }
        $worker->closeChannel();
        $this->workers->remove($pid);
        $this->changed = true;
        $this->workerExited($worker, $this->describeExit($status));

        return $worker;
    }

    /** SIGHUP: a new generation starts; the serving one drains once all of it is ready. */
    public function reload(): void
    {
        if ($this->dormant) {
            $this->logger->debug($this->kind->nounAtStart() . 's not reloaded: none runs yet (the first task starts them with the code as it is then)');

            return;
        }
        $this->reload->start($this->phase);
    }

    /** Every worker finishes what it has in hand and exits; whatever runs after $deadlineSeconds is killed. */
    public function stop(float $deadlineSeconds): void
    {
        $deadline = \microtime(true) + $deadlineSeconds;
        if ($this->phase === MasterPhase::Stopping) {
            $this->stopDeadline = \min($this->stopDeadline, $deadline);

            return;
        }
        $this->phase = MasterPhase::Stopping;
        $this->dormant = false;
        $this->reload->forget();
        foreach ($this->workers->all() as $worker) {
            if ($worker->state !== WorkerState::Draining) {
                $this->drain($worker, 'stopped');
            }
        }
        $this->stopDeadline = $deadline;
    }

    public function isStopped(): bool
    {
        return $this->phase === MasterPhase::Stopping && $this->workers->isEmpty();
    }

    /** Why the group cannot go on (a worker of the first generation died before it was ready), once it happened. */
    public function failure(): ?MasterFailedException
    {
        return $this->failure;
    }

    /** Whether anything worth a new status file happened since the last call. */
    public function takeChanged(): bool
    {
        $changed = $this->changed;
        $this->changed = false;

        return $changed;
    }

    /** One turn: the stop deadline, boot timeouts, replacements. */
    public function poll(float $now): void
    {
        if ($now >= $this->stopDeadline) {
            if (!$this->workers->isEmpty() && $this->failure === null) {
                $this->logger->warning('{count} ' . $this->kind->noun() . '(s) still running after the stop deadline; killing them', ['count' => $this->workers->count()]);
            }
            $this->workers->signalAll(\SIGKILL);
            $this->stopDeadline = \INF;
        }
        foreach ($this->workers->all() as $worker) {
            if ($worker->state === WorkerState::Booting && $now - $worker->started > $this->bootTimeout) {
                $worker->bootError ??= \sprintf('%s %d did not report ready within %.0f s', $this->kind->noun(), $worker->pid, $this->bootTimeout);
                $worker->signal(\SIGKILL);
            }
        }
        $this->replaceMissingWorkers($now);
    }

    /** @param string $reason why it ends, the reason label of bobbin_worker_exits_total */
    public function drain(WorkerHandle $worker, string $reason): void
    {
        $worker->state = WorkerState::Draining;
        $worker->endReason = $reason;
        $worker->signal(\SIGTERM);
        $this->changed = true;
    }

    private function workerReady(WorkerHandle $worker): void
    {
        if ($worker->state !== WorkerState::Booting) {
            return;
        }
        $worker->state = WorkerState::Ready;
        $worker->readyAt = \microtime(true);
        $this->changed = true;
        $this->replacements->workerReported($worker);
        if ($this->phase === MasterPhase::Starting) {
            if ($this->workers->countReady($this->reload->serving()) === $this->size) {
                $this->phase = MasterPhase::Running;
                if ($this->onRunning !== null) {
                    ($this->onRunning)();
                }
            }

            return;
        }
        if ($worker->generation === $this->reload->pending()) {
            $this->reload->workerReady();

            return;
        }
        // A replacement is serving: now the worker it replaces may drain.
        foreach ($this->workers->all() as $other) {
            if ($other->state === WorkerState::Retiring && $other->generation === $worker->generation) {
                $this->drain($other, 'recycled');

                return;
            }
        }
    }

    private function workerExited(WorkerHandle $worker, string $how): void
    {
        $expected = $this->phase === MasterPhase::Stopping || $worker->state === WorkerState::Draining;
        $this->metrics?->workerExited($expected ? ($worker->endReason !== '' ? $worker->endReason : 'stopped') : ($worker->bootError !== null ? 'boot_failed' : 'crashed'));
        if ($expected) {
            $this->logger->debug($this->kind->nounAtStart() . ' {pid} {how}', ['pid' => $worker->pid, 'how' => $how]);

            return;
        }
        $reason = $worker->bootError ?? \sprintf('%s %d %s%s', $this->kind->noun(), $worker->pid, $how, $worker->readyAt === null ? ' before it was ready' : '');
        if ($this->phase === MasterPhase::Starting && $worker->readyAt === null) {
            $this->failure ??= new MasterFailedException($reason, $worker->bootError !== null ? $worker->bootExitCode : 1);

            return;
        }
        if ($worker->generation === $this->reload->pending() && !$this->kind->hasServed($worker)) {
            $this->reload->abort($reason);

            return;
        }
        $this->replacements->workerCrashed($worker, $how, $reason, \microtime(true));
    }

    /** Keeps the serving generation (and one being started) at its size; retiring and draining workers are being replaced. */
    private function replaceMissingWorkers(float $now): void
    {
        if ($this->phase === MasterPhase::Stopping || $this->dormant || $this->failure !== null || !$this->replacements->isDue($now)) {
            return;
        }
        $this->replaceMissing($this->reload->serving());
        $pending = $this->reload->pending();
        if ($pending !== null) {
            $this->replaceMissing($pending); // a new worker that died serving (a reload goes on)
        }
    }

    private function replaceMissing(int $generation): void
    {
        for ($i = $this->workers->countActive($generation); $i < $this->size; $i++) {
            $this->spawn($generation);
        }
    }

    private function spawn(int $generation): void
    {
        $worker = ($this->fork)($generation, $this->workers);
        if ($worker === null) {
            $this->replacements->holdUntil(\microtime(true) + 1.0);

            return;
        }
        $this->workers->add($worker);
        $this->changed = true;
    }

    private function describeExit(int $status): string
    {
        if (\pcntl_wifsignaled($status)) {
            $signal = \pcntl_wtermsig($status);
            // A job worker arms SIGALRM past a task's limit when no caller is left to cancel it (JobWorker).
            $why = $signal === \SIGALRM && $this->kind === WorkerKind::Job ? ' (its task ran past its time limit and no caller was left to stop it)' : '';

            return \sprintf('was killed by signal %d%s', $signal, $why);
        }

        return \sprintf('exited with code %d', \pcntl_wexitstatus($status));
    }
}
