<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/**
 * A server started for a test run as a child process, with its PID recorded; stop() signals
 * that PID only.
 */
final class ServerProcess
{
    /** @param resource $process */
    private function __construct(private $process, public readonly int $port, private readonly string $logFile)
    {
    }

    /**
     * Starts bin/bobbin serve APP_FILE on a free port and waits until $readyPath answers.
     *
     * @param list<string> $options extra command-line options
     * @param array<string, string> $env
     */
    public static function bobbin(string $appFile, array $options = [], array $env = [], string $readyPath = '/health'): self
    {
        $root = \dirname(__DIR__, 2);
        $port = self::freePort();
        $log = \tempnam(\sys_get_temp_dir(), 'bobbin-test-log-');
        $command = \array_merge([\PHP_BINARY, "$root/bin/bobbin", 'serve', $appFile, "--listen=127.0.0.1:$port"], $options);
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $root, $env + \getenv());
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start ' . \implode(' ', $command));
        }
        $server = new self($process, $port, $log);
        $server->waitUntilReady($readyPath);

        return $server;
    }

    public static function freePort(): int
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($socket !== false);
        $name = (string) \stream_socket_get_name($socket, false);
        \fclose($socket);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    public function pid(): int
    {
        return (int) \proc_get_status($this->process)['pid'];
    }

    public function isRunning(): bool
    {
        return \proc_get_status($this->process)['running'];
    }

    public function log(): string
    {
        return (string) \file_get_contents($this->logFile);
    }

    /** @return int the exit code */
    public function stop(int $signal = \SIGTERM, float $timeout = 10.0): int
    {
        $status = \proc_get_status($this->process);
        if ($status['running']) {
            \posix_kill($status['pid'], $signal);
            $deadline = \microtime(true) + $timeout;
            while (($status = \proc_get_status($this->process))['running'] && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
            if ($status['running']) {
                \posix_kill($status['pid'], \SIGKILL);
                \usleep(100_000);
                $status = \proc_get_status($this->process);
            }
        }
        \proc_close($this->process);
        @\unlink($this->logFile);

        return $status['exitcode'];
    }

    private function waitUntilReady(string $path): void
    {
        $client = new HttpClient('127.0.0.1', $this->port, 2.0);
        $deadline = \microtime(true) + 15.0;
        while (\microtime(true) < $deadline) {
            if (!$this->isRunning()) {
                throw new \RuntimeException("The server exited during start:\n" . $this->log());
            }
            try {
                $client->request('GET', $path);

                return;
            } catch (\RuntimeException) {
                \usleep(50_000);
            }
        }
        $log = $this->log();
        $this->stop();
        throw new \RuntimeException("The server did not answer $path within 15 s:\n$log");
    }
}
