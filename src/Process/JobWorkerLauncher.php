<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Closure;
use Psr\Log\LoggerInterface;

/** Forks one job worker with a socket pair to its supervisor; in the child, runs its life and exits. */
final class JobWorkerLauncher
{
    public function __construct(private readonly JobPoolConfig $config, private readonly LoggerInterface $logger)
    {
    }

    /**
     * @param resource $listener the pool's socket
     * @param Closure(): void $inChild run first in the child: drops what the supervisor holds
     * @return WorkerHandle|null the supervisor's record of the new worker; null when the fork failed (logged)
     */
    public function fork($listener, int $generation, Closure $inChild): ?WorkerHandle
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            $this->logger->error('Cannot create a socket pair for a new job worker; retrying in 1 s');

            return null;
        }
        $pid = \pcntl_fork();
        if ($pid === -1) {
            \fclose($pair[0]);
            \fclose($pair[1]);
            $this->logger->error('Cannot fork a job worker: {error}; retrying in 1 s', ['error' => \pcntl_strerror(\pcntl_get_last_error())]);

            return null;
        }
        if ($pid === 0) {
            \fclose($pair[0]);
            $this->becomeJobWorker($listener, $pair[1], $inChild);
        }
        \fclose($pair[1]);
        \stream_set_blocking($pair[0], false);

        return new WorkerHandle($pid, $generation, $pair[0], \microtime(true));
    }

    /**
     * @param resource $listener
     * @param resource $channel
     * @param Closure(): void $inChild
     */
    private function becomeJobWorker($listener, $channel, Closure $inChild): never
    {
        $code = 1;
        try {
            $inChild();
            $code = (new JobWorker($this->config, $listener, $channel, $this->logger))->run();
        } catch (\Throwable $error) {
            $this->logger->critical('Job worker {pid} failed: {error}', ['pid' => \getmypid(), 'error' => $error, 'exception' => $error]);
        }
        exit($code);
    }
}
