<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\LoopHeartbeat;
use Bobbin\Async\OwnsResources;
use Bobbin\Http\Legacy\GlobalScopeHandoffException;
use Bobbin\Http\ListenAddress;
use Bobbin\Http\Server;
use Bobbin\Http\ServerStartException;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Process\Admin\AdminAccess;
use Bobbin\Process\Admin\AdminExposure;
use Bobbin\Process\Admin\AdminListener;
use Bobbin\Process\Admin\AdminService;
use Bobbin\Process\Admin\MasterMetrics;
use Psr\Log\LoggerInterface;
use Psr\Log\LogLevel;

/**
 * The supervisor: binds the listening socket once, forks the workers that accept on it, and
 * keeps them alive — replacing dead ones with back-off, reloading on SIGHUP (new generation
 * ready first, then the old one drains), recycling workers that ask for it, and stopping them
 * all on SIGTERM/SIGINT. It never loads the application and never runs an event loop: a plain
 * blocking loop over the workers' socket pairs, with its signals blocked and collected by
 * pcntl_sigtimedwait(), so no signal interrupts it halfway through a decision.
 *
 * Over 400 lines: it is where signals, the admin listener, the status file, the job workers and
 * the HTTP worker group meet; what each of them decides lives elsewhere (WorkerGroup, Reload,
 * JobSupervisor, AdminService).
 */
final class Master
{
    use OwnsResources;

    private const SIGNALS = [\SIGCHLD, \SIGTERM, \SIGINT, \SIGHUP, \SIGUSR1];
    private const TICK_MICROSECONDS = 100_000;
    private const STATUS_EVERY_SECONDS = 0.25;
    private const FAILED_START_GRACE_SECONDS = 2.0;

    /** The HTTP workers: spawned, replaced, reloaded and stopped as WorkerGroup decides; forked here (spawn()). */
    private readonly WorkerGroup $group;
    private readonly WorkerRoster $workers;
    private ?MasterFailedException $failure = null;
    private bool $statusDirty = true;
    private float $statusWrittenAt = 0.0;
    private readonly float $started;
    /** The master's own pid: a forked worker unwinding through run() (the legacy mode's handoff) must not clean up. */
    private readonly int $pid;
    /** @var resource|null */
    private $listener = null;
    private string $address = '';
    private readonly MasterMetrics $metrics;
    private ?AdminService $admin = null;
    private ?PidFile $pidFile = null;
    private readonly ?JobSupervisor $jobs;
    /** Null without --block-stacks, when --block-threshold is 0, in the legacy mode (its scripts block by design), or without FFI. */
    private readonly ?BlockWatch $blocks;
    private readonly int $tickMicroseconds;
    private readonly ?CodeWatch $watch;

    public function __construct(
        private readonly MasterConfig $config,
        private readonly LoggerInterface $logger,
        ?RestartPolicy $restarts = null,
    ) {
        $this->pid = (int) \getmypid();
        $this->started = \microtime(true);
        $this->metrics = new MasterMetrics($this->started);
        $this->group = new WorkerGroup(
            WorkerKind::Http,
            $config->workers,
            $config->bootTimeout,
            $this->spawn(...),
            $logger,
            $restarts ?? new RestartPolicy(),
            $this->metrics,
            $this->listening(...),
        );
        $this->workers = $this->group->workers();
        $this->jobs = $config->jobs === null ? null : new JobSupervisor($config->jobs, $logger, $this->forgetInJobWorker(...));
        $this->blocks = $config->legacy || !$config->blockStacks ? null : BlockWatch::create($config->blockThreshold);
        $this->watch = $config->watch ? new CodeWatch(\dirname((string) (\realpath($config->appFile) ?: $config->appFile))) : null;
        $this->tickMicroseconds = $this->blocks === null ? self::TICK_MICROSECONDS : (int) ($this->blocks->tickSeconds() * 1e6);
    }

    /**
     * Runs until a graceful stop has finished.
     *
     * @throws MasterFailedException when it cannot start (the address is taken, a worker cannot boot) or a crash loop stops it
     */
    public function run(): void
    {
        try {
            // Before listening: a second server with this pid file must not share the port.
            $this->pidFile = $this->config->pidFile === '' ? null : PidFile::claim($this->config->pidFile);
            $this->listener = Server::listen($this->config->server->listen, $this->config->server->backlog);
        } catch (ServerStartException | PidFileException $error) {
            $this->pidFile?->release();
            throw new MasterFailedException($error->getMessage());
        }
        $this->address = ListenAddress::ofSocket($this->listener);
        if ($this->config->admin !== '') {
            try {
                $this->admin = new AdminService(
                    AdminListener::open($this->config->admin),
                    $this->metrics,
                    $this->workers->askForMetrics(...),
                    fn (): array => [$this->describe(), $this->workers->describe(\microtime(true))],
                    $this->config->adminAccess ?? AdminAccess::for($this->config->admin, null, false),
                );
            } catch (ServerStartException | \InvalidArgumentException $error) {
                \fclose($this->listener);
                $this->pidFile?->release();
                throw new MasterFailedException('--admin: ' . $error->getMessage());
            }
        }
        \pcntl_sigprocmask(\SIG_BLOCK, self::SIGNALS);
        try {
            // Job workers first: an HTTP worker's first task waits in their socket's queue until one is ready.
            $this->jobs?->open();
            $this->jobs?->start();
            $this->group->start();
            $this->supervise();
        } finally {
            $this->cleanUp();
        }
        if ($this->failure !== null) {
            throw $this->failure;
        }
        $this->logger->info('Stopped');
    }

    private function supervise(): void
    {
        while (true) {
            $this->waitForActivity();
            $this->readChannels();
            $this->admin?->tick(\microtime(true));
            $this->collectSignals();
            $this->reloadOnCodeChange();
            $this->reap();
            $now = \microtime(true);
            $failure = $this->group->failure();
            if ($failure !== null) {
                $this->fail($failure);
            }
            $this->askBlockedWorkersForTheirStack();
            $this->superviseJobWorkers($now);
            if ($this->group->isStopped() && ($this->jobs === null || $this->jobs->isStopped())) {
                return;
            }
            $this->group->poll($now);
            if ($this->group->takeChanged()) {
                $this->statusDirty = true;
            }
            $this->writeStatus($now);
        }
    }

    /** Sleeps until a worker writes (at once) or a tick passes (signals and exits are polled per tick). */
    private function waitForActivity(): void
    {
        $channels = \array_merge($this->admin?->streams() ?? [], $this->jobs?->channels() ?? [], $this->workers->channels());
        if ($channels === []) {
            $signal = \pcntl_sigtimedwait(self::SIGNALS, $info, 0, $this->tickMicroseconds * 1000);
            if (\is_int($signal) && $signal > 0) {
                $this->handleSignal($signal);
            }

            return;
        }
        $write = $except = null;
        @\stream_select($channels, $write, $except, 0, $this->tickMicroseconds);
    }

    private function readChannels(): void
    {
        foreach ($this->workers->all() as $worker) {
            foreach ($worker->receive() as $message) {
                $this->handleMessage($worker, $message);
            }
        }
    }

    private function collectSignals(): void
    {
        while (true) {
            $signal = \pcntl_sigtimedwait(self::SIGNALS, $info, 0, 0);
            if (!\is_int($signal) || $signal <= 0) {
                return;
            }
            $this->handleSignal($signal);
        }
    }

    private function handleSignal(int $signal): void
    {
        switch ($signal) {
            case \SIGTERM:
            case \SIGINT:
                if ($this->group->phase() === MasterPhase::Stopping) {
                    $this->logger->warning('Received signal {signal} again; workers close every connection now', ['signal' => $signal]);
                    $this->workers->signalAll(\SIGINT);
                } else {
                    $this->logger->info('Received signal {signal}; stopping {count} worker(s) gracefully (up to {s} s)', [
                        'signal' => $signal, 'count' => $this->workers->count(), 's' => $this->config->server->drainTimeout,
                    ]);
                    $this->stop($this->config->server->drainTimeout + $this->config->idleGrace + $this->config->stopMargin);
                }
                break;
            case \SIGHUP:
                $this->group->reload();
                $this->jobs?->reload();
                break;
            case \SIGUSR1:
                // logrotate's postrotate: each worker reopens its --access-log-file.
                $this->workers->signalAll(\SIGUSR1);
                $this->statusDirty = true;
                $this->statusWrittenAt = 0.0;
                break;
        }
    }

    private function handleMessage(WorkerHandle $worker, WorkerMessage $message): void
    {
        if ($this->group->handle($worker, $message) || $message->type !== WorkerMessage::METRICS) {
            return;
        }
        $families = [];
        foreach ((array) ($message->fields['families'] ?? []) as $data) {
            $family = \is_array($data) ? MetricFamily::fromArray($data) : null;
            if ($family !== null) {
                $families[] = $family;
            }
        }
        $this->admin?->answered($worker->pid, $message->int('id'), $families);
    }

    /** The whole first generation is ready: the server is up. */
    private function listening(): void
    {
        $this->logger->info('Listening on {address} (master pid {pid}, {count} workers)', [
            'address' => $this->address, 'pid' => \getmypid(), 'count' => $this->config->workers,
        ]);
        if ($this->admin !== null) {
            $access = $this->admin->access();
            $this->logger->log(
                $access->exposure === AdminExposure::OpenToAnyone ? LogLevel::WARNING : LogLevel::INFO,
                'Admin on {admin}: /metrics, /status, /status.json, /health, /ready ({access})',
                ['admin' => $this->admin->address(), 'access' => $access->describe()],
            );
        }
    }

    private function reap(): void
    {
        while (($pid = \pcntl_waitpid(-1, $status, \WNOHANG)) > 0) {
            if ($this->group->reaped($pid, $status, $this->handleMessage(...)) === null) {
                $this->jobs?->reaped($pid, $status);
                continue;
            }
            $this->admin?->workerEnded($pid);
            $this->blocks?->release($pid);
            $this->statusDirty = true;
        }
    }

    /** Signals each worker whose loop has been held past --block-threshold: it logs the stack of what holds it. */
    private function askBlockedWorkersForTheirStack(): void
    {
        if ($this->blocks === null) {
            return;
        }
        foreach ($this->blocks->overThreshold(\hrtime(true)) as $pid) {
            $this->workers->get($pid)?->signal(BlockWatch::SIGNAL);
        }
    }

    /** Forks one HTTP worker (WorkerGroup's fork); null when it could not (the group retries in 1 s). */
    private function spawn(int $generation): ?WorkerHandle
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            $this->logger->error('Cannot create a socket pair for a new worker; retrying in 1 s');

            return null;
        }
        $slot = $this->blocks?->freeSlot();
        $pid = \pcntl_fork();
        if ($pid === -1) {
            \fclose($pair[0]);
            \fclose($pair[1]);
            $this->logger->error('Cannot fork a worker: {error}; retrying in 1 s', ['error' => \pcntl_strerror(\pcntl_get_last_error())]);

            return null;
        }
        if ($pid === 0) {
            \fclose($pair[0]);
            $this->becomeWorker($pair[1], $slot === null ? null : $this->blocks?->heartbeat($slot));
        }
        \fclose($pair[1]);
        if ($slot !== null) {
            $this->blocks?->assign($pid, $slot);
        }
        \stream_set_blocking($pair[0], false);
        $this->metrics->workerStarts++;

        return new WorkerHandle($pid, $generation, $pair[0], \microtime(true));
    }

    /**
     * In the forked child: drop the master's state and run the worker; never returns.
     *
     * @param resource $channel
     */
    private function becomeWorker($channel, ?LoopHeartbeat $heartbeat): never
    {
        $this->jobs?->forgetInChild();
        $this->workers->forgetInChild();
        $this->admin?->forget();
        $this->admin = null;
        $listener = $this->listener;
        \assert($listener !== null);
        $code = 1;
        try {
            $code = (new Worker($this->config, $listener, new WorkerChannel($channel), $this->logger, $heartbeat))->run();
        } catch (GlobalScopeHandoffException $handoff) {
            throw $handoff; // the legacy mode: on to bin/bobbin's global scope
        } catch (\Throwable $error) {
            $this->logger->critical('Worker {pid} failed: {error}', ['pid' => \getmypid(), 'error' => $error, 'exception' => $error]);
        }
        exit($code);
    }

    private function stop(float $deadlineSeconds): void
    {
        $this->group->stop($deadlineSeconds);
        // New clients are refused from now on, not queued behind workers that no longer accept
        // and reset when the last copy of the socket closes. Each worker closes its own copy.
        $this->closeListener();
    }

    private function fail(MasterFailedException $failure): void
    {
        $this->failure ??= $failure;
        $this->stop(self::FAILED_START_GRACE_SECONDS);
    }

    private function writeStatus(float $now): void
    {
        $path = $this->config->statusFile();
        if ($path === '' || !$this->statusDirty || $now - $this->statusWrittenAt < self::STATUS_EVERY_SECONDS) {
            return;
        }
        StatusFile::write($path, [
            'updated' => $now,
            'master' => $this->describe(),
            'workers' => $this->workers->describe($now),
        ] + ($this->jobs === null ? [] : ['jobWorkers' => $this->jobs->describe($now)]));
        $this->statusDirty = false;
        $this->statusWrittenAt = $now;
    }

    /** @return array<string, mixed> the master's part of the status file and of /status.json */
    private function describe(): array
    {
        return [
            'pid' => \getmypid(),
            'started' => $this->started,
            'address' => $this->address,
            'admin' => $this->admin?->address() ?? '',
            'workers' => $this->config->workers,
            'generation' => $this->group->generation(),
            'phase' => \strtolower($this->group->phase()->name),
        ];
    }

    private function cleanUp(): void
    {
        if (\getmypid() !== $this->pid) {
            return; // a worker on its way to the global scope: the master's things are not its own
        }
        $this->admin?->close();
        if (!$this->workers->isEmpty()) {
            // Only reached on an unexpected error in the master itself: leave no worker behind.
            $this->workers->signalAll(\SIGKILL);
            while (!$this->workers->isEmpty() && ($pid = \pcntl_waitpid(-1, $status)) > 0) {
                $this->workers->remove($pid);
            }
        }
        $this->closeListener();
        $this->jobs?->close();
        if ($this->pidFile?->release() === true) {
            @\unlink($this->config->statusFile()); // the status file goes with the pid file it belongs to
        }
        // The signals stay blocked: unblocking now would let a late SIGTERM kill the exiting master.
    }

    /** --watch: a reload as SIGHUP's; checked only while none is under way, so no change is lost to "already under way". */
    private function reloadOnCodeChange(): void
    {
        if ($this->watch !== null && $this->group->phase() === MasterPhase::Running && !$this->group->isReloading() && ($file = $this->watch->poll(\microtime(true))) !== null) {
            $this->logger->info('Code changed ({file}); reloading', ['file' => $file]);
            $this->handleSignal(\SIGHUP);
        }
    }

    /**
     * The job workers' turn (JobSupervisor): they go on serving tasks through a stop until the
     * last HTTP worker, which might still await one, has exited; a pool that cannot go on
     * stops the master.
     */
    private function superviseJobWorkers(float $now): void
    {
        $jobs = $this->jobs;
        if ($jobs === null) {
            return;
        }
        if ($this->group->isStopped()) {
            $jobs->stop($this->config->stopMargin);
        }
        $jobs->poll($now);
        if ($jobs->takeChanged()) {
            $this->statusDirty = true;
        }
        $failure = $jobs->failure();
        if ($failure !== null && $this->group->phase() !== MasterPhase::Stopping) {
            $this->fail($failure);
        }
    }

    /** In a forked job worker: the HTTP side's descriptors are not its own (the listener is closed, never unlinked). */
    private function forgetInJobWorker(): void
    {
        $this->workers->forgetInChild();
        if ($this->listener !== null) {
            \fclose($this->listener);
            $this->listener = null;
        }
    }

    private function closeListener(): void
    {
        if ($this->listener === null) {
            return;
        }
        \fclose($this->listener);
        $this->listener = null;
        if (\str_starts_with($this->address, 'unix:')) {
            @\unlink(\substr($this->address, 5));
        }
    }
}
