<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/**
 * `bin/bobbin serve` with a master (--workers, --pid-file) in a child process on a port the OS
 * picks; the address is read from the master's "Listening on" line. Stopped by its PID only;
 * kill() (and so the destructor) also kills any worker still alive, by the PIDs the status
 * file listed.
 */
final class MasterProcess
{
    private readonly BobbinChild $child;
    public readonly string $address;
    public readonly int $pid;
    public readonly string $pidFile;
    /** @var array<int, true> every worker pid seen, to clean up after a failed test */
    private array $seenWorkers = [];

    /**
     * @param list<string> $options
     * @param array<string, string> $environment
     */
    private function __construct(string $appFile, array $options, array $environment, bool $waitForListening)
    {
        $this->pidFile = \sys_get_temp_dir() . '/bobbin-process-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(4)) . '.pid';
        $this->child = new BobbinChild(
            \array_merge(['serve', $appFile, '--listen=127.0.0.1:0', '--pid-file=' . $this->pidFile], $options),
            $environment,
        );
        $this->pid = $this->child->pid;
        if (!$waitForListening) {
            $this->address = '';

            return;
        }
        $this->address = $this->child->awaitLog('/Listening on (\S+)/', 20.0, 'The master did not start')[1];
        $this->workerPids(); // remember them for the clean-up
    }

    public function __destruct()
    {
        $this->kill();
    }

    /**
     * @param list<string> $options e.g. ['--workers=2', '--max-requests=100']
     * @param array<string, string> $environment
     */
    public static function start(string $appFile, array $options = ['--workers=2'], array $environment = []): self
    {
        return new self($appFile, $options, $environment, true);
    }

    /**
     * Starts a master that is expected to fail; returns at once.
     *
     * @param list<string> $options
     * @param array<string, string> $environment
     */
    public static function startExpectingFailure(string $appFile, array $options = ['--workers=2'], array $environment = []): self
    {
        return new self($appFile, $options, $environment, false);
    }

    public static function root(): string
    {
        return BobbinChild::root();
    }

    public function port(): int
    {
        return (int) \substr($this->address, (int) \strrpos($this->address, ':') + 1);
    }

    public function url(string $path = '/'): string
    {
        return 'http://' . $this->address . $path;
    }

    public function signal(int $signal): void
    {
        $this->child->signal($signal);
    }

    public function isRunning(): bool
    {
        return $this->child->isRunning();
    }

    /** Waits for the master to exit by itself; returns its exit code. */
    public function wait(float $timeout = 20.0): int
    {
        return $this->child->wait($timeout);
    }

    /** Everything the master and its workers logged so far. */
    public function log(): string
    {
        return $this->child->log();
    }

    /**
     * Polls the log until $pattern matches (a regular expression).
     *
     * @return list<string> the match
     */
    public function waitForLog(string $pattern, float $timeout = 10.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (\preg_match($pattern, $this->child->log(), $m) !== 1) {
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException("No log line matched $pattern within $timeout s:\n" . $this->child->log());
            }
            \usleep(50_000);
        }

        return \array_values($m);
    }

    /** @return array<string, mixed>|null the master's status file */
    public function status(): ?array
    {
        $json = @\file_get_contents($this->pidFile . '.status.json');
        $status = \is_string($json) ? \json_decode($json, true) : null;

        return \is_array($status) ? $status : null;
    }

    /**
     * Worker pids as the status file lists them, optionally only those in one state.
     *
     * @return list<int>
     */
    public function workerPids(?string $state = null): array
    {
        $pids = [];
        foreach ((array) ($this->status()['workers'] ?? []) as $worker) {
            if (\is_array($worker) && ($state === null || ($worker['state'] ?? null) === $state)) {
                $pid = (int) ($worker['pid'] ?? 0);
                $pids[] = $pid;
                $this->seenWorkers[$pid] = true;
            }
        }
        \sort($pids);

        return $pids;
    }

    /**
     * Polls the status file until $accept returns true for the pids of the workers in $state
     * (null: in any state).
     *
     * @param \Closure(list<int>): bool $accept
     * @return list<int>
     */
    public function waitForReadyWorkers(\Closure $accept, float $timeout = 10.0, ?string $state = 'ready'): array
    {
        $deadline = \microtime(true) + $timeout;
        while (true) {
            $pids = $this->workerPids($state);
            if ($accept($pids)) {
                return $pids;
            }
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException("The workers did not reach the expected state within $timeout s; ready: " . \implode(',', $pids) . "\n" . $this->log());
            }
            \usleep(50_000);
        }
    }

    /** SIGTERM and wait; returns the exit code. */
    public function stop(float $timeout = 20.0): int
    {
        return $this->child->stop($timeout);
    }

    /** Leaves nothing running: the master and every worker it had, by pid. */
    public function kill(): void
    {
        $this->child->kill();
        foreach (\array_keys($this->seenWorkers) as $pid) {
            if ($pid > 0 && self::isOurWorker($pid)) {
                \posix_kill($pid, \SIGKILL);
            }
        }
        @\unlink($this->pidFile);
        @\unlink($this->pidFile . '.status.json');
    }

    /**
     * Waits until none of $pids runs any more (a zombie counts as exited).
     *
     * @param list<int> $pids
     * @return list<int> those still running after $timeout
     */
    public static function waitUntilExited(array $pids, float $timeout = 10.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (true) {
            $running = \array_values(\array_filter($pids, self::isAlive(...)));
            if ($running === [] || \microtime(true) > $deadline) {
                return $running;
            }
            \usleep(50_000);
        }
    }

    public static function isAlive(int $pid): bool
    {
        $stat = @\file_get_contents('/proc/' . $pid . '/stat');

        return \is_string($stat) && \preg_match('/\) Z/', $stat) !== 1;
    }

    private static function isOurWorker(int $pid): bool
    {
        $command = @\file_get_contents('/proc/' . $pid . '/cmdline');

        return \is_string($command) && \str_contains($command, 'bin/bobbin');
    }
}
