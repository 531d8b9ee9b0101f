<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Process;

/**
 * `bin/bobbin …` as a child process of the test, signalled and killed by its PID only. Its stderr
 * goes to a file, not a pipe: a pipe nobody drains would block a chatty process. BOBBIN_*
 * variables of the test run are not passed on, so each test says what it sets.
 */
final class BobbinChild
{
    /** @var resource */
    private $process;
    /** @var resource the log file, read from where the last read stopped */
    private $stderr;
    private readonly string $logFile;
    private string $log = '';
    private ?int $exitCode = null;
    public readonly int $pid;

    /**
     * @param list<string> $arguments after bin/bobbin
     * @param array<string, string> $environment added to the test's own (without BOBBIN_*)
     * @param int|null $fileLimit `ulimit -n` for the child
     * @param list<string> $phpOptions before bin/bobbin, e.g. ['-d', 'name=value']
     */
    public function __construct(array $arguments, array $environment = [], ?int $fileLimit = null, array $phpOptions = [])
    {
        $command = \array_merge([\PHP_BINARY], $phpOptions, [self::root() . '/bin/bobbin'], $arguments);
        if ($fileLimit !== null) {
            $command = ['/bin/sh', '-c', 'ulimit -n ' . $fileLimit . ' && exec "$@"', 'sh', ...$command];
        }
        $this->logFile = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-child-log-');
        $process = \proc_open(
            $command,
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $this->logFile, 'w']],
            $pipes,
            self::root(),
            $environment + self::baseEnvironment(),
        );
        $log = \fopen($this->logFile, 'r');
        if ($process === false || $log === false) {
            throw new \RuntimeException('Cannot start bin/bobbin');
        }
        $this->process = $process;
        $this->stderr = $log;
        $this->pid = (int) \proc_get_status($process)['pid'];
    }

    public static function root(): string
    {
        return \dirname(__DIR__, 3);
    }

    /**
     * Runs `bin/bobbin` to completion (for commands expected to finish fast).
     *
     * @param list<string> $arguments after bin/bobbin
     * @param array<string, string> $environment
     * @return array{int, string, string} exit code, stdout, stderr
     */
    public static function runToCompletion(array $arguments, array $environment = [], float $timeout = 15.0): array
    {
        $command = \array_merge([\PHP_BINARY, self::root() . '/bin/bobbin'], $arguments);
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $environment + self::baseEnvironment());
        if ($process === false) {
            throw new \RuntimeException('Cannot start bin/bobbin');
        }
        \stream_set_blocking($pipes[1], false);
        \stream_set_blocking($pipes[2], false);
        $out = $err = '';
        $deadline = \microtime(true) + $timeout;
        while (true) {
            $read = [$pipes[1], $pipes[2]];
            $write = $except = null;
            @\stream_select($read, $write, $except, 0, 50000);
            $out .= (string) \stream_get_contents($pipes[1]);
            $err .= (string) \stream_get_contents($pipes[2]);
            $status = \proc_get_status($process);
            if (!$status['running']) {
                $out .= (string) \stream_get_contents($pipes[1]);
                $err .= (string) \stream_get_contents($pipes[2]);
                \proc_close($process);

                return [$status['exitcode'], $out, $err];
            }
            if (\microtime(true) > $deadline) {
                \posix_kill($status['pid'], \SIGKILL);
                \proc_close($process);
                throw new \RuntimeException("bin/bobbin did not finish:\n" . $err);
            }
        }
    }

    /**
     * Polls the log until $pattern (a regular expression) matches. If the process exits or
     * $timeout passes first, it is killed and the exception carries the log.
     *
     * @return list<string> the match
     */
    public function awaitLog(string $pattern, float $timeout, string $failure): array
    {
        $deadline = \microtime(true) + $timeout;
        while (\preg_match($pattern, $this->log, $m) !== 1) {
            if (\microtime(true) > $deadline || !$this->isRunning()) {
                $this->readLog(0.1);
                $this->kill();
                throw new \RuntimeException("$failure:\n" . $this->log);
            }
            $this->readLog(0.05);
        }

        return \array_values($m);
    }

    /** Everything the process logged so far. */
    public function log(): string
    {
        $this->readLog(0.0);

        return $this->log;
    }

    public function signal(int $signal): void
    {
        if ($this->isRunning()) {
            \posix_kill($this->pid, $signal);
        }
    }

    /** @phpstan-impure */
    public function isRunning(): bool
    {
        if ($this->exitCode !== null) {
            return false;
        }
        // proc_get_status() reports the exit code once only: keep it.
        $status = \proc_get_status($this->process);
        if ($status['running']) {
            return true;
        }
        $this->exitCode = $status['exitcode'];
        \proc_close($this->process);

        return false;
    }

    /** Waits for the process to exit by itself and returns its exit code; kills it after $timeout. */
    public function wait(float $timeout = 15.0): int
    {
        $deadline = \microtime(true) + $timeout;
        while ($this->isRunning()) {
            if (\microtime(true) > $deadline) {
                $this->kill();
                throw new \RuntimeException("bin/bobbin did not exit within $timeout s:\n" . $this->log());
            }
            $this->readLog(0.02);
        }
        $this->readLog(0.0);

        return (int) $this->exitCode;
    }

    /** SIGTERM, then wait(); returns the exit code. */
    public function stop(float $timeout = 15.0): int
    {
        $this->signal(\SIGTERM);

        return $this->wait($timeout);
    }

    public function kill(): void
    {
        if ($this->isRunning()) {
            \posix_kill($this->pid, \SIGKILL);
            for ($tries = 0; $tries < 250 && $this->isRunning(); $tries++) {
                \usleep(20_000);
            }
        }
    }

    public function __destruct()
    {
        $this->kill();
        @\unlink($this->logFile);
    }

    private function readLog(float $wait): void
    {
        if ($wait > 0) {
            \usleep((int) ($wait * 1e6));
        }
        if (\is_resource($this->stderr)) {
            $this->log .= (string) \stream_get_contents($this->stderr);
        }
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
