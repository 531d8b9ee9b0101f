<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\OwnsResources;
use Bobbin\Platform\ByteSize;
use Bobbin\Async\Async;
use Bobbin\Async\BlockProbe;
use Bobbin\Async\LoopHeartbeat;
use Bobbin\Async\Timer;
use Bobbin\Http\Legacy\GlobalScopeHandoffException;
use Bobbin\Http\Legacy\LegacyGateway;
use Bobbin\Http\Server;
use Bobbin\Jobs\JobMetrics;
use Bobbin\Jobs\Security\Refusals;
use Bobbin\Leaks\LeakDetectingHandler;
use Bobbin\Leaks\LeakReporter;
use Bobbin\Metrics\ProcessCollector;
use Bobbin\Pool\PoolMetrics;
use Bobbin\Metrics\Registry;
use Bobbin\Http\ServerStartException;
use Bobbin\Jobs\Jobs;
use Psr\Log\LoggerInterface;

/**
 * The life of one forked worker: load the application from disk, serve on the listening socket
 * inherited from the master, report to the master, stop gracefully on SIGTERM.
 */
final class Worker
{
    use OwnsResources;

    private readonly float $started;
    private bool $ready = false;
    private bool $retiring = false;
    private ?Server $server = null;
    private ?Timer $reporter = null;
    private ?LeakReporter $leaks = null;
    /** Null without --admin: nobody keeps the figures then. */
    private ?FinalMetrics $finalMetrics = null;

    /**
     * @param resource $listener the master's listening socket
     */
    public function __construct(
        private readonly MasterConfig $config,
        private $listener,
        private readonly WorkerChannel $channel,
        private readonly LoggerInterface $logger,
        /** The master's view of this worker's loop (BlockWatch, --block-stacks); null: no stacks of blocking code. */
        private readonly ?LoopHeartbeat $heartbeat = null,
    ) {
        $this->started = \microtime(true);
    }

    /** @return int the process's exit code */
    public function run(): int
    {
        $this->leaveTheMastersSignalSetup();
        // A fresh loop: the master never started one, but a driver must not be shared with it either.
        Async::startFreshLoop();
        ProcessShutdown::register($this->reportFatalErrorAtBoot(...));
        OpcacheRefresh::invalidateChangedScripts();
        $this->installJobs();

        $legacy = null;
        if ($this->config->legacy) {
            $handler = $this->config->legacyConfig->gateway();
            $legacy = $this->config->legacyConfig->loop(
                \realpath($this->config->appFile) ?: $this->config->appFile,
                $handler,
                $this->logger,
                $this->finish(...),
                $this->config->server->requestTimeout,
                function (string $reason): void {
                    // No new connections for a process that is ending; the master starts another.
                    $this->server?->stop(1.0);
                    $this->channel->send(WorkerMessage::exiting($reason));
                },
            );
        } else {
            try {
                $handler = ApplicationLoader::load($this->config->appFile);
            } catch (ApplicationLoadException $error) {
                $this->channel->send(WorkerMessage::bootFailed($error->getMessage(), $error->isUsageError ? 2 : 1));

                return 1;
            }
            if ($this->config->detectLeaks) {
                $this->leaks = new LeakReporter($this->logger);
                $handler = new LeakDetectingHandler($handler, $this->leaks);
            }
        }
        $server = new Server($this->config->server, $handler, $this->logger, $this->listener, $this->config->appFile);
        $this->server = $server;
        AbruptEndReport::register($server, $this->reportAtExit(...));
        try {
            $server->start();
        } catch (ServerStartException $error) {
            $this->channel->send(WorkerMessage::bootFailed($error->getMessage(), 1));

            return 1;
        }

        new StopSignals(
            function () use ($server): void {
                $server->stop($this->config->server->drainTimeout, $this->config->idleGrace);
            },
            static function () use ($server): void {
                $server->abort();
            },
            $server->isStopping(...),
        );
        $registry = Registry::default();
        $registry->add($server->metrics());
        $process = new ProcessCollector();
        $process->start();
        $registry->add($process);
        $registry->add(PoolMetrics::shared());
        $registry->add(new JobMetrics());
        if ($this->leaks !== null) {
            $registry->add($this->leaks);
        }
        if ($this->config->admin !== '') {
            $this->finalMetrics = new FinalMetrics($registry, $this->channel);
            $this->finalMetrics->sendAtShutdown();
        }
        $this->channel->listen(function () use ($server): void {
            if (!$server->isStopping()) {
                $this->logger->warning('The master process is gone; worker {pid} stops', ['pid' => \getmypid()]);
                $server->stop($this->config->server->drainTimeout, $this->config->idleGrace);
            }
        }, function (WorkerMessage $message) use ($registry): void {
            if ($message->type === WorkerMessage::COLLECT) {
                $families = [];
                foreach ($registry->collect() as $family) {
                    $families[] = $family->toArray();
                }
                $this->channel->send(WorkerMessage::metrics($message->int('id'), $families));
            }
        });
        if ($legacy === null) {
            $this->detectBlockingCalls($server, $registry);
        }
        $requestLimit = $this->config->recycle->requestLimitForOneWorker();
        if ($requestLimit > 0) {
            $server->setRequestLimit($requestLimit, fn () => $this->retire(\sprintf('served %d requests', $requestLimit)));
        }
        $this->ready = true;
        $this->channel->send(WorkerMessage::ready());
        $this->report();
        $this->reporter = Timer::every($this->config->statsInterval, $this->report(...))->unreference();
        if ($legacy !== null && $handler instanceof LegacyGateway) {
            Async::run(static function () use ($server, $handler): void {
                $server->stopped()->await();
                $handler->close();
            })->ignore();
            throw new GlobalScopeHandoffException($legacy); // ScriptLoop::end() calls finish()
        }

        $server->stopped()->await();

        return $this->finish();
    }

    /** Before the application loads: the tasks it submits go to the master's job workers (Jobs::shared()). */
    private function installJobs(): void
    {
        Refusals::shared()->useLogger($this->logger); // a refused reply is told once per job worker, in this worker's log
        $jobs = $this->config->jobs;
        if ($jobs !== null) {
            Jobs::install(Jobs::localPool($jobs->socketPath, $jobs->keys, $jobs->client));
        }
    }

    /**
     * Logs each request whose code held the loop past --block-threshold, once it lets go
     * (Async::reportLoopHolds(): nothing is interrupted). With --block-stacks the master also
     * sees this worker's loop (a heartbeat in shared memory) and signals it while such code
     * runs, and the warning then carries the code's PHP stack (BlockProbe).
     */
    private function detectBlockingCalls(Server $server, Registry $registry): void
    {
        if ($this->config->blockThreshold <= 0.0) {
            return;
        }
        $reporter = new BlockReporter($this->logger, $server->requestRunningIn(...), $this->config->blockThreshold);
        if (!Async::reportLoopHolds($this->config->blockThreshold, $reporter->held(...))) {
            return; // another loop driver: it cannot tell
        }
        $registry->add($reporter);
        if ($this->heartbeat !== null && Async::setLoopHeartbeat($this->heartbeat) && !BlockProbe::install(BlockWatch::SIGNAL, $reporter->report(...))) {
            Async::setLoopHeartbeat(null);
        }
    }

    /** After the last request: stop reporting and say goodbye to the master; the exit code. */
    private function finish(): int
    {
        $this->reporter?->cancel();
        $this->finalMetrics?->send();
        $this->channel->close();

        return 0;
    }

    /**
     * The process ends (a normal stop, exit(), a fatal error): the master gets the last figures,
     * among them whether a request had started — a worker that a request killed is that
     * request's failure, not a crash loop (RestartPolicy).
     */
    private function reportAtExit(): void
    {
        $server = $this->server;
        if ($server === null || !$this->ready) {
            return;
        }
        $this->channel->send(WorkerMessage::stats(new WorkerStats(
            \getmypid() ?: 0,
            $this->started,
            $server->requestsServed(),
            0,
            \memory_get_usage(true),
            0,
        )));
    }

    /** Sends stats, and asks to be replaced once the heap is over --max-memory. */
    private function report(): void
    {
        $server = $this->server;
        if ($server === null || $server->isStopping()) {
            return;
        }
        $memory = \memory_get_usage(true);
        $this->channel->send(WorkerMessage::stats(new WorkerStats(
            \getmypid() ?: 0,
            $this->started,
            $server->requestsServed(),
            $server->inFlightCount(),
            $memory,
            $server->connectionCount(),
        )));
        if ($this->config->recycle->memoryExceeded($memory)) {
            $this->retire(\sprintf('uses %s, over --max-memory', ByteSize::format($memory)));
        }
    }

    /** Asks the master for a replacement; this worker serves on until the master sends SIGTERM. */
    private function retire(string $reason): void
    {
        if ($this->retiring) {
            return;
        }
        $this->retiring = true;
        $this->channel->send(WorkerMessage::retiring($reason));
    }

    /**
     * The master blocks its signals to collect them synchronously; a worker must receive them
     * normally, and must not get the terminal's Ctrl-C (the master forwards SIGTERM instead, so
     * one Ctrl-C is one graceful stop, not a graceful stop plus an abort).
     */
    private function leaveTheMastersSignalSetup(): void
    {
        \pcntl_sigprocmask(\SIG_SETMASK, []);
        foreach ([\SIGTERM, \SIGINT, \SIGCHLD] as $signal) {
            \pcntl_signal($signal, \SIG_DFL);
        }
        \pcntl_signal(\SIGHUP, \SIG_IGN);
        // The master forwards SIGUSR1 (reopen the access log): a worker still booting ignores it.
        \pcntl_signal(\SIGUSR1, \SIG_IGN);
        @\posix_setpgid(0, 0);
    }

    /** A fatal error while loading the application (parse error, memory limit) still reaches the master. */
    private function reportFatalErrorAtBoot(): void
    {
        if ($this->ready) {
            return;
        }
        $error = \error_get_last();
        if ($error !== null && ($error['type'] & (\E_ERROR | \E_PARSE | \E_CORE_ERROR | \E_COMPILE_ERROR)) !== 0) {
            $this->channel->send(WorkerMessage::bootFailed(\sprintf(
                'APP_FILE %s failed to load: %s (%s:%d)',
                $this->config->appFile,
                $error['message'],
                $error['file'],
                $error['line'],
            ), 1));
        }
    }
}
