<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Bobbin\Async\OwnsResources;
use Bobbin\Platform\ByteSize;
use Bobbin\Async\Async;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\Local\TaskServer;
use Bobbin\Jobs\Security\Refusals;
use Psr\Log\LoggerInterface;

/**
 * The life of one forked job worker: run --job-bootstrap once, then take tasks from the pool's
 * socket one at a time until SIGTERM (after the task in hand), the master's death, or a crash.
 *
 * Plain blocking code, no event loop: between tasks it sleeps in stream_select() on the pool's
 * socket and its channel to the master. SIGTERM and SIGINT stay blocked and are collected
 * between tasks, so a stop never cuts a task (or the reading of one) short.
 */
final class JobWorker
{
    use OwnsResources;

    private const POLL_MICROSECONDS = 100_000;

    private readonly float $started;
    private readonly WorkerChannel $channel;
    private ?TaskServer $server = null;
    private bool $ready = false;
    private bool $bootFailureSent = false;
    private bool $retiring = false;
    private int $tasks = 0;
    private float $reportedAt = 0.0;
    private int $reportedTasks = 0;

    /**
     * @param resource $listener the pool's listening socket (non-blocking, shared)
     * @param resource $channelSocket this worker's end of its socket pair with the master
     */
    public function __construct(
        private readonly JobPoolConfig $config,
        private $listener,
        private $channelSocket,
        private readonly LoggerInterface $logger,
    ) {
        $this->started = \microtime(true);
        $this->channel = new WorkerChannel($channelSocket);
    }

    /** @return int the process's exit code */
    public function run(): int
    {
        $this->takeSignals();
        if ($this->config->nice > 0) {
            @\proc_nice($this->config->nice);
        }
        // A task may wait on the loop itself (a database query in blocking mode): never on the master's driver.
        Async::startFreshLoop();
        // A task that submits tasks runs them here: a job worker waiting for the pool could wait for itself.
        Jobs::install(Jobs::inProcess());
        Refusals::shared()->useLogger($this->logger);
        OpcacheRefresh::invalidateChangedScripts();
        $headroom = MemoryHeadroom::forLastWords();
        \register_shutdown_function(function () use ($headroom): void {
            $headroom(); // room for the last words when the memory limit was what ended us
            $this->lastWords();
        });
        if (!$this->bootstrap()) {
            return 1;
        }
        $server = $this->server = new TaskServer($this->listener, $this->config->keys, $this->config->client->maxPayload, socketName: 'unix:' . $this->config->socketPath);
        $this->ready = true;
        $this->channel->send(WorkerMessage::ready());
        $this->report();
        $taskLimit = $this->config->recycle->requestLimitForOneWorker();
        while (!$this->stopRequested()) {
            $read = [$this->listener, $this->channelSocket];
            $write = $except = null;
            if (@\stream_select($read, $write, $except, 0, self::POLL_MICROSECONDS) < 1) {
                if ($this->tasks !== $this->reportedTasks && \microtime(true) - $this->reportedAt >= $this->config->statsInterval) {
                    $this->report(); // the last tasks before a quiet spell are counted too
                }
                continue;
            }
            if (\in_array($this->channelSocket, $read, true) && $this->masterIsGone()) {
                $this->logger->warning('The master process is gone; job worker {pid} stops', ['pid' => \getmypid()]);
                if ($this->config->ownsDirectory) {
                    // Nobody else will: the master that made the private directory was killed.
                    // (A path given with --job-socket may be a new master's by now: left alone.)
                    JobSocket::remove($this->config);
                }
                break;
            }
            if (\in_array($this->listener, $read, true) && $server->serveOne()) {
                $this->tasks++;
                $this->afterTask($taskLimit);
            }
        }
        $this->channel->close();

        return 0;
    }

    /** Runs --job-bootstrap; false (and the master told why) when it fails. */
    private function bootstrap(): bool
    {
        $file = $this->config->bootstrap;
        if ($file === '') {
            return true;
        }
        try {
            (static function (string $file): void {
                require $file;
            })($file);
        } catch (\Throwable $error) {
            $this->bootFailureSent = true;
            $this->channel->send(WorkerMessage::bootFailed(\sprintf(
                '--job-bootstrap %s failed: %s: %s (%s:%d)',
                $file,
                $error::class,
                $error->getMessage(),
                $error->getFile(),
                $error->getLine(),
            ), 1));

            return false;
        }

        return true;
    }

    private function afterTask(int $taskLimit): void
    {
        $memory = \memory_get_usage(true);
        if ($taskLimit > 0 && $this->tasks >= $taskLimit) {
            $this->retire(\sprintf('ran %d tasks', $this->tasks));
        } elseif ($this->config->recycle->memoryExceeded($memory)) {
            $this->retire(\sprintf('uses %s, over --job-max-memory', ByteSize::format($memory)));
        }
        if (\microtime(true) - $this->reportedAt >= $this->config->statsInterval) {
            $this->report();
        }
    }

    private function report(): void
    {
        $this->reportedAt = \microtime(true);
        $this->reportedTasks = $this->tasks;
        $this->channel->send(WorkerMessage::stats(new WorkerStats((int) \getmypid(), $this->started, $this->tasks, 0, \memory_get_usage(true))));
    }

    /** Asks the master for a replacement; this worker takes tasks until the master sends SIGTERM. */
    private function retire(string $reason): void
    {
        if (!$this->retiring) {
            $this->retiring = true;
            $this->channel->send(WorkerMessage::retiring($reason));
        }
    }

    /**
     * The master blocks its signals to collect them itself. Here SIGTERM and SIGINT stay blocked
     * and are collected between tasks; SIGALRM keeps its default action (TaskServer's backstop
     * for a task past its time limit); the terminal's Ctrl-C does not reach this process.
     */
    private function takeSignals(): void
    {
        foreach ([\SIGTERM, \SIGINT, \SIGCHLD, \SIGALRM, \SIGUSR1] as $signal) {
            \pcntl_signal($signal, \SIG_DFL);
        }
        \pcntl_signal(\SIGHUP, \SIG_IGN);
        \pcntl_sigprocmask(\SIG_SETMASK, [\SIGTERM, \SIGINT]);
        @\posix_setpgid(0, 0);
    }

    private function stopRequested(): bool
    {
        $signal = \pcntl_sigtimedwait([\SIGTERM, \SIGINT], $info, 0, 0);

        return \is_int($signal) && $signal > 0;
    }

    private function masterIsGone(): bool
    {
        $data = @\fread($this->channelSocket, 4096);

        return $data === false || ($data === '' && \feof($this->channelSocket));
    }

    /** From the shutdown function: tell the caller of the task in hand, or the master during the boot, why the process ends. */
    private function lastWords(): void
    {
        $error = \error_get_last();
        $fatal = $error !== null && ($error['type'] & (\E_ERROR | \E_PARSE | \E_CORE_ERROR | \E_COMPILE_ERROR)) !== 0;
        $reason = $fatal ? \sprintf('%s (%s:%d)', $error['message'], $error['file'], $error['line']) : 'exit() or die was called';
        if (!$this->ready) {
            if (!$this->bootFailureSent) {
                $this->channel->send(WorkerMessage::bootFailed($this->config->bootstrap === ''
                    ? 'The job worker ended while starting: ' . $reason
                    : \sprintf('--job-bootstrap %s ended the process: %s', $this->config->bootstrap, $reason), 1));
            }

            return;
        }
        $task = $this->server?->runningTask() ?? '';
        if ($task !== '') {
            $this->server?->reportCrash($reason);
            $this->logger->error('Job worker {pid} ended while running {task}: {reason}', ['pid' => \getmypid(), 'task' => $task, 'reason' => $reason]);
        }
    }
}
