<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Http;

/**
 * `bin/bobbin serve` in a child process on a port the OS picks (--listen=127.0.0.1:0); the
 * port is read from the "Listening on" log line. Stopped by its PID only.
 */
final class ServerProcess
{
    /** @var resource */
    private $process;
    /** @var resource the server's stderr, a file: a pipe nobody drains would block a chatty server */
    private $stderr;
    private readonly string $logFile;
    private string $log = '';
    public readonly string $address;
    public readonly int $port;
    public readonly int $pid;

    /**
     * @param list<string> $arguments after "serve"
     * @param array<string, string> $environment
     */
    private function __construct(array $arguments, array $environment, ?int $fileLimit = null)
    {
        $command = \array_merge([\PHP_BINARY, \dirname(__DIR__, 3) . '/bin/bobbin', 'serve'], $arguments);
        if ($fileLimit !== null) {
            $command = ['/bin/sh', '-c', 'ulimit -n ' . $fileLimit . ' && exec "$@"', 'sh', ...$command];
        }
        $this->logFile = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-serve-log-');
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $this->logFile, 'w']], $pipes, null, $environment + self::baseEnvironment());
        $log = \fopen($this->logFile, 'r');
        if ($process === false || $log === false) {
            throw new \RuntimeException('Cannot start bin/bobbin');
        }
        $this->process = $process;
        $this->stderr = $log;
        $this->pid = (int) \proc_get_status($process)['pid'];
        $deadline = \microtime(true) + 15.0;
        while (\preg_match('/Listening on (\S+)/', $this->log, $m) !== 1) {
            if (\microtime(true) > $deadline || !\proc_get_status($process)['running']) {
                $this->readLog(0.1);
                $this->kill();
                throw new \RuntimeException("bin/bobbin serve did not start:\n" . $this->log);
            }
            $this->readLog(0.05);
        }
        $this->address = $m[1];
        $this->port = (int) \substr($m[1], (int) \strrpos($m[1], ':') + 1);
    }

    /**
     * @param list<string> $options extra command-line options
     * @param array<string, string> $environment
     */
    public static function start(array $options = [], string $appFile = __DIR__ . '/test-app.php', array $environment = [], ?int $fileLimit = null): self
    {
        return new self(\array_merge([$appFile, '--listen=127.0.0.1:0'], $options), $environment, $fileLimit);
    }

    /**
     * Runs `bin/bobbin` to completion (for commands expected to fail fast).
     *
     * @param list<string> $arguments after bin/bobbin
     * @param array<string, string> $environment
     * @return array{int, string, string} exit code, stdout, stderr
     */
    public static function runToCompletion(array $arguments, array $environment = [], float $timeout = 15.0): array
    {
        $command = \array_merge([\PHP_BINARY, \dirname(__DIR__, 3) . '/bin/bobbin'], $arguments);
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

    public function url(string $path = '/'): string
    {
        return 'http://' . $this->address . $path;
    }

    /** Sends SIGTERM and waits; returns the exit code. */
    public function stop(float $timeout = 15.0): int
    {
        \posix_kill($this->pid, \SIGTERM);

        return $this->wait($timeout);
    }

    public function signal(int $signal): void
    {
        \posix_kill($this->pid, $signal);
    }

    /** Waits for the process to exit by itself; returns the exit code. */
    public function wait(float $timeout = 15.0): int
    {
        $deadline = \microtime(true) + $timeout;
        while (true) {
            $this->readLog(0.02);
            $status = \proc_get_status($this->process);
            if (!$status['running']) {
                $this->readLog(0.0);
                \proc_close($this->process);

                return $status['exitcode'];
            }
            if (\microtime(true) > $deadline) {
                $this->kill();
                throw new \RuntimeException("The server did not exit in time:\n" . $this->log);
            }
        }
    }

    public function isRunning(): bool
    {
        return \is_resource($this->process) && \proc_get_status($this->process)['running'];
    }

    /** Everything the server logged so far. */
    public function log(): string
    {
        $this->readLog(0.0);

        return $this->log;
    }

    public function kill(): void
    {
        if (\is_resource($this->process) && \proc_get_status($this->process)['running']) {
            \posix_kill($this->pid, \SIGKILL);
            \proc_close($this->process);
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
