<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\OwnsResources;
use Closure;
use Psr\Log\LoggerInterface;

/**
 * Keeps the job workers alive for a supervising process (the master, or JobMaster beside a
 * single serving process): binds their socket, forks them, replaces the dead, reloads them on
 * request (new generation ready first, then the old one finishes its tasks), recycles those
 * that ask, and stops them. Never waits: the supervising process calls poll() every turn of
 * its own loop and reaped() for every child it reaps.
 *
 * A job worker that dies after it was ready died of a task (exit(), a fatal error, a kill on
 * timeout): it is replaced at once and never counts towards a crash loop; deaths before ready
 * (a failing --job-bootstrap) back off and end in a crash loop as HTTP workers do.
 */
final class JobSupervisor
{
    use OwnsResources;

    /** @var array<int, WorkerHandle> by pid */
    private array $workers = [];
    private MasterPhase $phase = MasterPhase::Starting;
    private int $generation = 1;
    /** The generation a reload is starting, until all of it is ready (or one of it fails). */
    private ?int $pendingGeneration = null;
    private float $nextSpawnAt = 0.0;
    private float $stopDeadline = \INF;
    private ?MasterFailedException $failure = null;
    private bool $changed = true;
    /** Bound and taking tasks, but none of them forked yet (JobPoolConfig::$startAtFirstTask): the first task in the socket's queue forks them. */
    private bool $awaitingFirstTask = false;
    /** @var resource|null */
    private $listener = null;
    private readonly RestartPolicy $restarts;
    private readonly JobWorkerLauncher $launcher;
    /** The supervising process: only it cleans up. */
    private int $pid;

    /** @param Closure(): void $forgetParentState run in each forked job worker: closes what the supervising process holds and a job worker must not */
    public function __construct(
        private readonly JobPoolConfig $config,
        private readonly LoggerInterface $logger,
        private readonly Closure $forgetParentState,
        ?RestartPolicy $restarts = null,
    ) {
        $this->restarts = $restarts ?? new RestartPolicy();
        $this->launcher = new JobWorkerLauncher($config, $logger);
        $this->pid = (int) \getmypid();
    }

    /** Makes the process calling this the supervising one (JobMaster's child, after open() in its parent). */
    public function moveToThisProcess(): void
    {
        $this->pid = (int) \getmypid();
    }

    /** @throws MasterFailedException when the socket cannot be made */
    public function open(): void
    {
        $this->listener = JobSocket::bind($this->config);
    }

    /** Forks the first generation, or (JobPoolConfig::$startAtFirstTask) waits for the first task to do so. */
    public function start(): void
    {
        if ($this->config->startAtFirstTask) {
            // The socket already queues tasks: the pool counts as running, its workers follow the first task.
            $this->awaitingFirstTask = true;
            $this->phase = MasterPhase::Running;
            $this->logger->debug('Job workers start at the first task on unix:{path}', ['path' => $this->config->socketPath]);

            return;
        }
        for ($i = 0; $i < $this->config->workers; $i++) {
            $this->spawn($this->generation);
        }
    }

    /** @return list<resource> the channels of the job workers (and the socket while it awaits its first task), for the supervising process's wait */
    public function channels(): array
    {
        $channels = $this->awaitingFirstTask && $this->listener !== null ? [$this->listener] : [];
        foreach ($this->workers as $worker) {
            if (\is_resource($worker->channel)) {
                $channels[] = $worker->channel;
            }
        }

        return $channels;
    }

    /** One turn: the first task, messages, deadlines, replacements. */
    public function poll(float $now): void
    {
        $this->startAtFirstTask();
        foreach ($this->workers as $worker) {
            foreach ($worker->receive() as $message) {
                $this->handleMessage($worker, $message);
            }
        }
        if ($now >= $this->stopDeadline) {
            if ($this->workers !== []) {
                $this->logger->warning('{count} job worker(s) still running at the stop deadline; killing them', ['count' => \count($this->workers)]);
            }
            $this->signalAll(\SIGKILL);
            $this->stopDeadline = \INF;
        }
        foreach ($this->workers as $worker) {
            if ($worker->state === WorkerState::Booting && $now - $worker->started > $this->config->bootTimeout) {
                $worker->bootError ??= \sprintf('job worker %d did not report ready within %.0f s', $worker->pid, $this->config->bootTimeout);
                $worker->signal(\SIGKILL);
            }
        }
        $this->replaceMissingWorkers($now);
    }

    /** @return bool whether $pid was one of the job workers */
    public function reaped(int $pid, int $status): bool
    {
        $worker = $this->workers[$pid] ?? null;
        if ($worker === null) {
            return false;
        }
        foreach ($worker->receive() as $message) {
            $this->handleMessage($worker, $message);
        }
        $worker->closeChannel();
        unset($this->workers[$pid]);
        $this->changed = true;
        $this->workerExited($worker, self::describeExit($status));

        return true;
    }

    /** SIGHUP: a new generation loads --job-bootstrap afresh; the old one finishes its tasks once it is ready. */
    public function reload(): void
    {
        if ($this->phase !== MasterPhase::Running) {
            $this->logger->notice('Job workers not reloaded: they are {phase}', ['phase' => \strtolower($this->phase->name)]);

            return;
        }
        if ($this->awaitingFirstTask) {
            $this->logger->debug('Job workers not reloaded: none runs yet (the first task starts them with the code as it is then)');

            return;
        }
        if ($this->pendingGeneration !== null) {
            $this->logger->notice('Job workers not reloaded: a reload of them is already under way');

            return;
        }
        $generation = $this->pendingGeneration = $this->generation + 1;
        $this->logger->info('Reloading: starting {count} new job worker(s)', ['count' => $this->config->workers]);
        for ($i = 0; $i < $this->config->workers; $i++) {
            $this->spawn($generation);
        }
    }

    /** Every job worker finishes the task in hand and exits; whatever runs after $deadlineSeconds is killed. */
    public function stop(float $deadlineSeconds): void
    {
        if ($this->phase === MasterPhase::Stopping) {
            return;
        }
        $this->phase = MasterPhase::Stopping;
        $this->awaitingFirstTask = false;
        $this->pendingGeneration = null;
        foreach ($this->workers as $worker) {
            if ($worker->state !== WorkerState::Draining) {
                $this->drain($worker);
            }
        }
        $this->stopDeadline = \microtime(true) + $deadlineSeconds;
    }

    public function isStopped(): bool
    {
        return $this->phase === MasterPhase::Stopping && $this->workers === [];
    }

    /** Whether the first generation has been ready (and no stop has begun). */
    public function isRunning(): bool
    {
        return $this->phase === MasterPhase::Running;
    }

    /** Why the pool cannot go on (a job worker of the first generation failed, a crash loop), once it happened. */
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

    /** @return list<array<string, mixed>> one entry per job worker, for the status file */
    public function describe(float $now): array
    {
        $entries = [];
        foreach ($this->workers as $worker) {
            $started = $worker->stats->started ?? $worker->started;
            $entries[] = [
                'pid' => $worker->pid,
                'generation' => $worker->generation,
                'state' => $worker->state->value,
                'started' => $started,
                'uptime' => \round($now - $started, 1),
                'tasks' => $worker->stats->requests ?? 0,
                'memory' => $worker->stats->memory ?? 0,
            ];
        }

        return $entries;
    }

    /** In a forked process that is no job worker (an HTTP worker): drop the copies of the pool's descriptors. */
    public function forgetInChild(): void
    {
        foreach ($this->workers as $worker) {
            $worker->closeChannel();
        }
        $this->workers = [];
        if ($this->listener !== null) {
            \fclose($this->listener);
            $this->listener = null;
        }
    }

    /** At the very end: nothing left running, the socket and its private directory removed. */
    public function close(): void
    {
        if (\getmypid() !== $this->pid) {
            return; // a forked process unwinding: the pool is not its own
        }
        $this->signalAll(\SIGKILL);
        foreach (\array_keys($this->workers) as $pid) {
            \pcntl_waitpid($pid, $status);
        }
        $bound = $this->listener !== null; // else the path may be another pool's, found in use
        $this->forgetInChild();
        if ($bound) {
            JobSocket::remove($this->config);
        }
    }

    private function handleMessage(WorkerHandle $worker, WorkerMessage $message): void
    {
        switch ($message->type) {
            case WorkerMessage::READY:
                $this->workerReady($worker);
                break;
            case WorkerMessage::BOOT_FAILED:
                $worker->bootError = $message->string('message', 'the job worker could not boot');
                break;
            case WorkerMessage::STATS:
                $worker->stats = WorkerStats::fromMessage($message, $worker->pid, $worker->started);
                $this->changed = true;
                break;
            case WorkerMessage::RETIRING:
                if ($worker->state === WorkerState::Ready && $this->phase === MasterPhase::Running) {
                    $worker->state = WorkerState::Retiring;
                    $this->changed = true;
                    $this->logger->info('Job worker {pid} retires ({reason}); starting its replacement', [
                        'pid' => $worker->pid, 'reason' => $message->string('reason', 'asked to'),
                    ]);
                }
                break;
        }
    }

    private function workerReady(WorkerHandle $worker): void
    {
        if ($worker->state !== WorkerState::Booting) {
            return;
        }
        $worker->state = WorkerState::Ready;
        $worker->readyAt = \microtime(true);
        $this->restarts->workerServed(); // a job worker that is ready serves tasks
        $this->changed = true;
        if ($this->phase === MasterPhase::Starting) {
            if ($this->countReady($this->generation) === $this->config->workers) {
                $this->phase = MasterPhase::Running;
                $this->logger->debug('Job workers ready: {count} on unix:{path}', ['count' => $this->config->workers, 'path' => $this->config->socketPath]);
            }

            return;
        }
        if ($worker->generation === $this->pendingGeneration) {
            if ($this->countReady($worker->generation) === $this->config->workers) {
                $this->completeReload();
            }

            return;
        }
        // A replacement is ready: now the worker it replaces may finish.
        foreach ($this->workers as $other) {
            if ($other->state === WorkerState::Retiring && $other->generation === $worker->generation) {
                $this->drain($other);

                return;
            }
        }
    }

    private function completeReload(): void
    {
        $new = (int) $this->pendingGeneration;
        $old = 0;
        foreach ($this->workers as $worker) {
            if ($worker->generation < $new && $worker->state !== WorkerState::Draining) {
                $this->drain($worker);
                $old++;
            }
        }
        $this->generation = $new;
        $this->pendingGeneration = null;
        $this->logger->info('Job workers reloaded: {count} new one(s) take tasks; {old} old one(s) finish theirs', ['count' => $this->config->workers, 'old' => $old]);
    }

    private function workerExited(WorkerHandle $worker, string $how): void
    {
        if ($this->phase === MasterPhase::Stopping || $worker->state === WorkerState::Draining) {
            $this->logger->debug('Job worker {pid} {how}', ['pid' => $worker->pid, 'how' => $how]);

            return;
        }
        $reason = $worker->bootError ?? \sprintf('job worker %d %s%s', $worker->pid, $how, $worker->readyAt === null ? ' before it was ready' : '');
        if ($this->phase === MasterPhase::Starting) {
            $this->failure ??= new MasterFailedException($reason);

            return;
        }
        if ($worker->generation === $this->pendingGeneration) {
            $this->logger->error('Reload of the job workers failed, the running ones stay: {reason}', ['reason' => $reason]);
            foreach ($this->workers as $other) {
                if ($other->generation === $this->pendingGeneration && $other->state !== WorkerState::Draining) {
                    $this->drain($other);
                }
            }
            $this->pendingGeneration = null;

            return;
        }
        $now = \microtime(true);
        // After ready, a death is a task's doing (exit(), a fatal error, a kill on timeout), not a crash loop.
        $wasInCrashLoop = $this->restarts->inCrashLoop();
        $delay = $this->restarts->workerDied($now - $worker->started, $worker->readyAt !== null, $worker->readyAt !== null);
        if ($this->restarts->inCrashLoop() && !$wasInCrashLoop) {
            $this->logger->error('crash loop: {count} job workers in a row died before they were ready; replacements keep starting, at most {max} s apart. The last: {reason}', [
                'count' => $this->restarts->quickDeathsInARow(), 'max' => $this->restarts->maxDelay, 'reason' => $reason,
            ]);
        }
        $this->nextSpawnAt = \max($this->nextSpawnAt, $now + $delay);
        $this->logger->warning($delay > 0.0 ? 'Job worker {pid} {how}; a replacement starts in {delay} s' : 'Job worker {pid} {how}; starting a replacement', [
            'pid' => $worker->pid, 'how' => $worker->bootError !== null ? 'could not boot: ' . $worker->bootError : $how, 'delay' => \round($delay, 2),
        ]);
    }

    /**
     * A connection waits in the socket's queue: the first task. It stays there (this process never
     * accepts) until one of the job workers forked now takes it. From now on the pool is kept as
     * any other; a job worker that cannot boot backs off and is retried rather than ending a
     * server that serves already.
     */
    private function startAtFirstTask(): void
    {
        if (!$this->awaitingFirstTask || $this->listener === null) {
            return;
        }
        $read = [$this->listener];
        $write = $except = null;
        if ((int) @\stream_select($read, $write, $except, 0, 0) < 1) {
            return;
        }
        $this->awaitingFirstTask = false;
        $this->logger->info('First task: starting {count} job worker(s)', ['count' => $this->config->workers]);
        $this->replaceMissingWorkers(\microtime(true));
    }

    /** Keeps the current generation at --job-workers (retiring workers do not count: they are being replaced). */
    private function replaceMissingWorkers(float $now): void
    {
        if ($this->phase !== MasterPhase::Running || $this->awaitingFirstTask || $this->failure !== null || $now < $this->nextSpawnAt) {
            return;
        }
        $active = 0;
        foreach ($this->workers as $worker) {
            if ($worker->generation === $this->generation && ($worker->state === WorkerState::Booting || $worker->state === WorkerState::Ready)) {
                $active++;
            }
        }
        for ($i = $active; $i < $this->config->workers; $i++) {
            $this->spawn($this->generation);
        }
    }

    private function spawn(int $generation): void
    {
        $listener = $this->listener;
        \assert($listener !== null);
        $worker = $this->launcher->fork($listener, $generation, function (): void {
            foreach ($this->workers as $sibling) {
                // Holding a sibling's end would hide the supervisor's death from that sibling.
                $sibling->closeChannel();
            }
            $this->workers = [];
            ($this->forgetParentState)();
        });
        if ($worker === null) {
            $this->nextSpawnAt = \microtime(true) + 1.0;

            return;
        }
        $this->workers[$worker->pid] = $worker;
        $this->changed = true;
    }

    private function drain(WorkerHandle $worker): void
    {
        $worker->state = WorkerState::Draining;
        $worker->signal(\SIGTERM);
        $this->changed = true;
    }

    private function signalAll(int $signal): void
    {
        foreach ($this->workers as $worker) {
            $worker->signal($signal);
        }
    }

    private function countReady(int $generation): int
    {
        $count = 0;
        foreach ($this->workers as $worker) {
            if ($worker->generation === $generation && $worker->state === WorkerState::Ready) {
                $count++;
            }
        }

        return $count;
    }

    private static function describeExit(int $status): string
    {
        if (\pcntl_wifsignaled($status)) {
            $signal = \pcntl_wtermsig($status);

            return \sprintf('was killed by signal %d%s', $signal, $signal === \SIGALRM ? ' (its task ran past its time limit and no caller was left to stop it)' : '');
        }

        return \sprintf('exited with code %d', \pcntl_wexitstatus($status));
    }
}
