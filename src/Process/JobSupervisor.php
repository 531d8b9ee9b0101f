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

    /** The job workers: spawned, replaced, reloaded and stopped as WorkerGroup decides, as the master's HTTP workers are. */
    private readonly WorkerGroup $group;
    /** @var resource|null */
    private $listener = null;
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
        $this->launcher = new JobWorkerLauncher($config, $logger);
        $this->group = new WorkerGroup(
            WorkerKind::Job,
            $config->workers,
            $config->bootTimeout,
            $this->spawn(...),
            $logger,
            $restarts ?? new RestartPolicy(),
            null,
            static function () use ($logger, $config): void {
                $logger->debug('Job workers ready: {count} on unix:{path}', ['count' => $config->workers, 'path' => $config->socketPath]);
            },
        );
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
            $this->group->startDormant();
            $this->logger->debug('Job workers start at the first task on unix:{path}', ['path' => $this->config->socketPath]);

            return;
        }
        $this->group->start();
    }

    /** @return list<resource> the channels of the job workers (and the socket while it awaits its first task), for the supervising process's wait */
    public function channels(): array
    {
        $channels = $this->group->isDormant() && $this->listener !== null ? [$this->listener] : [];

        return \array_merge($channels, $this->group->workers()->channels());
    }

    /** One turn: the first task, messages, deadlines, replacements. */
    public function poll(float $now): void
    {
        $this->startAtFirstTask($now);
        foreach ($this->group->workers()->all() as $worker) {
            foreach ($worker->receive() as $message) {
                $this->group->handle($worker, $message);
            }
        }
        $this->group->poll($now);
    }

    /** @return bool whether $pid was one of the job workers */
    public function reaped(int $pid, int $status): bool
    {
        return $this->group->reaped($pid, $status, function (WorkerHandle $worker, WorkerMessage $message): void {
            $this->group->handle($worker, $message);
        }) !== null;
    }

    /** SIGHUP: a new generation loads --job-bootstrap afresh; the old one finishes its tasks once it is ready. */
    public function reload(): void
    {
        $this->group->reload();
    }

    /** Every job worker finishes the task in hand and exits; whatever runs after $deadlineSeconds is killed. */
    public function stop(float $deadlineSeconds): void
    {
        $this->group->stop($deadlineSeconds);
    }

    public function isStopped(): bool
    {
        return $this->group->isStopped();
    }

    /** Whether the first generation has been ready (and no stop has begun). */
    public function isRunning(): bool
    {
        return $this->group->phase() === MasterPhase::Running;
    }

    /** Why the pool cannot go on (a job worker of the first generation failed), once it happened. */
    public function failure(): ?MasterFailedException
    {
        return $this->group->failure();
    }

    /** Whether anything worth a new status file happened since the last call. */
    public function takeChanged(): bool
    {
        return $this->group->takeChanged();
    }

    /** @return list<array<string, mixed>> one entry per job worker, for the status file */
    public function describe(float $now): array
    {
        $entries = [];
        foreach ($this->group->workers()->all() as $worker) {
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
        $this->group->workers()->forgetInChild();
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
        $workers = $this->group->workers();
        $workers->signalAll(\SIGKILL);
        foreach (\array_keys($workers->all()) as $pid) {
            \pcntl_waitpid($pid, $status);
        }
        $bound = $this->listener !== null; // else the path may be another pool's, found in use
        $this->forgetInChild();
        if ($bound) {
            JobSocket::remove($this->config);
        }
    }

    /**
     * A connection waits in the socket's queue: the first task. It stays there (this process never
     * accepts) until one of the job workers forked now takes it. From now on the pool is kept as
     * any other; a job worker that cannot boot backs off and is retried rather than ending a
     * server that serves already.
     */
    private function startAtFirstTask(float $now): void
    {
        if (!$this->group->isDormant() || $this->listener === null) {
            return;
        }
        $read = [$this->listener];
        $write = $except = null;
        if ((int) @\stream_select($read, $write, $except, 0, 0) < 1) {
            return;
        }
        $this->logger->info('First task: starting {count} job worker(s)', ['count' => $this->config->workers]);
        $this->group->wake($now);
    }

    /** Forks one job worker (WorkerGroup's fork); null when it could not (the group retries in 1 s). */
    private function spawn(int $generation, WorkerRoster $workers): ?WorkerHandle
    {
        $listener = $this->listener;
        \assert($listener !== null);

        return $this->launcher->fork($listener, $generation, function () use ($workers): void {
            // Holding a sibling's end would hide the supervisor's death from that sibling.
            $workers->forgetInChild();
            ($this->forgetParentState)();
        });
    }
}
