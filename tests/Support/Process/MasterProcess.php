<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/**
 * `bin/bobbin serve` with a master (--workers, --pid-file) in a child process on a port the OS
 * picks; the address is read from the master's "Listening on" line. Stopped by its PID only;
 * tearDown() also kills any worker still alive, by the PIDs the status file listed.
 */
final class MasterProcess
{
    /** @var resource */
    private $process;
    /** @var resource */
    private $stderr;
    private string $log = '';
    public readonly string $address;
    public readonly int $pid;
    public readonly string $pidFile;
    /** @var array<int, true> every worker pid seen, to clean up after a failed test */
    private array $seenWorkers = [];
    private ?int $exitCode = null;

    /**
     * @param list<string> $options
     * @param array<string, string> $environment
     */
    private function __construct(string $appFile, array $options, array $environment, bool $waitForListening)
    {
        $this->pidFile = \sys_get_temp_dir() . '/bobbin-process-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(4)) . '.pid';
        $command = \array_merge(
            [\PHP_BINARY, self::root() . '/bin/bobbin', 'serve', $appFile, '--listen=127.0.0.1:0', '--pid-file=' . $this->pidFile],
            $options,
        );
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['pipe', 'w']], $pipes, self::root(), $environment + self::baseEnvironment());
        if ($process === false) {
            throw new \RuntimeException('Cannot start bin/bobbin');
        }
        $this->process = $process;
        $this->stderr = $pipes[2];
        \stream_set_blocking($this->stderr, false);
        $this->pid = (int) \proc_get_status($process)['pid'];
        if (!$waitForListening) {
            $this->address = '';

            return;
        }
        $deadline = \microtime(true) + 20.0;
        while (\preg_match('/Listening on (\S+)/', $this->log, $m) !== 1) {
            if (\microtime(true) > $deadline || !$this->isRunning()) {
                $this->readLog(0.1);
                $this->kill();
                throw new \RuntimeException("The master did not start:\n" . $this->log);
            }
            $this->readLog(0.05);
        }
        $this->address = $m[1];
        $this->workerPids(); // remember them for the clean-up
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
        return \dirname(__DIR__, 3);
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
        \posix_kill($this->pid, $signal);
    }

    public function isRunning(): bool
    {
        if ($this->exitCode !== null) {
            return false;
        }
        $status = \proc_get_status($this->process);
        if (!$status['running']) {
            $this->exitCode = $status['exitcode'];

            return false;
        }

        return true;
    }

    /** Waits for the master to exit by itself; returns its exit code. */
    public function wait(float $timeout = 20.0): int
    {
        $deadline = \microtime(true) + $timeout;
        while ($this->isRunning()) {
            if (\microtime(true) > $deadline) {
                $this->readLog(0.0);
                throw new \RuntimeException("The master did not exit within $timeout s:\n" . $this->log);
            }
            $this->readLog(0.02);
        }
        $this->readLog(0.0);

        return (int) $this->exitCode;
    }

    /** Everything the master and its workers logged so far. */
    public function log(): string
    {
        $this->readLog(0.0);

        return $this->log;
    }

    /**
     * Polls the log until $pattern matches (a regular expression).
     *
     * @return list<string> the match
     */
    public function waitForLog(string $pattern, float $timeout = 10.0): array
    {
        $deadline = \microtime(true) + $timeout;
        while (\preg_match($pattern, $this->log, $m) !== 1) {
            if (\microtime(true) > $deadline) {
                throw new \RuntimeException("No log line matched $pattern within $timeout s:\n" . $this->log);
            }
            $this->readLog(0.05);
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
            $this->readLog(0.05);
        }
    }

    /** SIGTERM and wait; returns the exit code. */
    public function stop(float $timeout = 20.0): int
    {
        if (!$this->isRunning()) {
            return (int) $this->exitCode;
        }
        $this->signal(\SIGTERM);

        return $this->wait($timeout);
    }

    /** Leaves nothing running: the master and every worker it had, by pid. */
    public function kill(): void
    {
        if ($this->isRunning()) {
            $this->signal(\SIGKILL);
            $this->wait(5.0);
        }
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

    private function readLog(float $wait): void
    {
        if (!\is_resource($this->stderr)) {
            return;
        }
        if ($wait > 0) {
            $read = [$this->stderr];
            $write = $except = null;
            @\stream_select($read, $write, $except, 0, (int) ($wait * 1e6));
        }
        $this->log .= (string) \stream_get_contents($this->stderr);
    }

    /** @return array<string, string> */
    private static function baseEnvironment(): array
    {
        $environment = [];
        foreach (\getenv() as $name => $value) {
            if (!\str_starts_with($name, 'BOBBIN_')) {
                $environment[$name] = $value;
            }
        }

        return $environment;
    }
}
