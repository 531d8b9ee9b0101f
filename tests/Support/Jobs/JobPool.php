<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\JobsConfig;
use Bobbin\Tests\Support\Process\MasterProcess;

/**
 * A real `bin/bobbin serve` master with job workers on a socket this test knows, so the test
 * process itself can submit tasks to them (as an HTTP worker does). Every job worker pid seen in
 * the status file is killed at the end if still alive, by pid.
 */
final class JobPool
{
    public const APP = __DIR__ . '/app.php';
    public const BOOTSTRAP = __DIR__ . '/bootstrap.php';
    /** A --legacy script that submits an EchoTask (?v=VALUE). */
    public const LEGACY_SCRIPT = __DIR__ . '/legacy.php';

    public readonly MasterProcess $master;
    public readonly string $socket;
    /** @var array<int, true> */
    private array $seen = [];

    /**
     * @param list<string> $options further options of serve
     * @param array<string, string> $environment
     */
    public function __construct(array $options = [], array $environment = [], bool $waitForJobWorkers = true)
    {
        $this->socket = \sys_get_temp_dir() . '/bobbin-jobs-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(3)) . '.sock';
        // The test process submits as an HTTP worker does, so the pool signs with a key it knows.
        $options = \array_merge(['--workers=1', '--job-workers=2', '--job-socket=' . $this->socket, '--jobs-key-file=' . TestJobKeys::file(), '--log-level=debug'], $options);
        $this->master = $waitForJobWorkers
            ? MasterProcess::start(self::APP, $options, $environment)
            : MasterProcess::startExpectingFailure(self::APP, $options, $environment);
        if ($waitForJobWorkers) {
            $count = (int) $this->master->waitForLog('/Job workers ready: (\d+) on unix:/', 20.0)[1];
            $this->awaitJobWorkers(static fn (array $pids): bool => \count($pids) === $count);
        }
    }

    public function __destruct()
    {
        $this->kill();
    }

    /** A client of the pool in this process, as an HTTP worker has one. */
    public function jobs(int $queue = 64, float $queueWait = 10.0, float $timeLimit = 60.0): Jobs
    {
        return Jobs::localPool($this->socket, TestJobKeys::keys(), new JobsConfig($queue, $queueWait, $timeLimit));
    }

    /**
     * Job worker pids as the status file lists them, optionally only those in one state.
     *
     * @return list<int>
     */
    public function jobWorkerPids(?string $state = 'ready'): array
    {
        $pids = [];
        foreach ((array) ($this->master->status()['jobWorkers'] ?? []) as $worker) {
            if (\is_array($worker) && ($state === null || ($worker['state'] ?? null) === $state)) {
                $pid = (int) ($worker['pid'] ?? 0);
                $pids[] = $pid;
                $this->seen[$pid] = true;
            }
        }
        \sort($pids);

        return $pids;
    }

    /**
     * Polls the status file until $accept is true for the ready job workers' pids.
     *
     * @param \Closure(list<int>): bool $accept
     * @return list<int>
     */
    public function awaitJobWorkers(\Closure $accept, float $timeout = 10.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (!$accept($pids = $this->jobWorkerPids())) {
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException("The job workers did not reach the expected state within $timeout s; ready: " . \implode(',', $pids) . "\n" . $this->master->log());
            }
            \usleep(50_000);
            $this->master->signal(\SIGUSR1); // a fresh status file now
        }

        return $pids;
    }

    public function kill(): void
    {
        $this->master->kill();
        foreach (\array_keys($this->seen) as $pid) {
            $command = @\file_get_contents('/proc/' . $pid . '/cmdline');
            if ($pid > 0 && \is_string($command) && \str_contains($command, 'bin/bobbin')) {
                \posix_kill($pid, \SIGKILL);
            }
        }
        @\unlink($this->socket);
    }
}
