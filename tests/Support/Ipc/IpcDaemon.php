<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

/**
 * native/build/bobbin-ipcd started for a test on a temporary unix socket and a TCP port the
 * OS picked, with its PID recorded; every signal goes to that PID only.
 */
final class IpcDaemon
{
    private ?int $exitCode = null;

    /** @param resource $process */
    private function __construct(
        private $process,
        public readonly int $pid,
        public readonly string $socketPath,
        public readonly int $tcpPort,
        private readonly string $logFile,
    ) {
    }

    public static function binary(): string
    {
        $root = \dirname(__DIR__, 3);
        $binary = "$root/native/build/bobbin-ipcd";
        if (!\is_executable($binary)) {
            \exec('make -C ' . \escapeshellarg("$root/native") . ' 2>&1', $output, $code);
            if ($code !== 0) {
                throw new \RuntimeException("Building the IPC daemon failed:\n" . \implode("\n", $output));
            }
        }

        return $binary;
    }

    /** @param list<string> $options */
    public static function start(array $options = [], ?string $socketPath = null): self
    {
        $binary = self::binary();
        $socketPath ??= \sys_get_temp_dir() . '/bobbin-ipcd-test-' . \bin2hex(\random_bytes(6)) . '.sock';
        $log = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-ipcd-log-');
        $command = \array_merge([$binary, "--unix=$socketPath", '--tcp=127.0.0.1:0'], $options);
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start ' . \implode(' ', $command));
        }
        $pid = (int) \proc_get_status($process)['pid'];
        $deadline = \microtime(true) + 10.0;
        while (\microtime(true) < $deadline) {
            $text = (string) \file_get_contents($log);
            if (\preg_match('/ready unix=\S+ tcp=127\.0\.0\.1:(\d+)/', $text, $m) === 1) {
                return new self($process, $pid, $socketPath, (int) $m[1], $log);
            }
            if (!\proc_get_status($process)['running']) {
                \proc_close($process);
                throw new \RuntimeException("The IPC daemon exited during start:\n$text");
            }
            \usleep(10_000);
        }
        \posix_kill($pid, \SIGKILL);
        \proc_close($process);
        throw new \RuntimeException('The IPC daemon did not report ready within 10 s');
    }

    /** Moves the daemon to one CPU (taskset; it stays there until it stops). */
    public function pinTo(int $cpu): void
    {
        \exec(\sprintf('taskset -p -c %d %d 2>&1', $cpu, $this->pid), $output, $code);
        if ($code !== 0) {
            throw new \RuntimeException('taskset failed: ' . \implode("\n", $output));
        }
    }

    public function log(): string
    {
        return (string) \file_get_contents($this->logFile);
    }

    /** @phpstan-impure */
    public function isRunning(): bool
    {
        if ($this->exitCode !== null) {
            return false;
        }
        $status = \proc_get_status($this->process);
        if (!$status['running']) {
            $this->exitCode = $status['exitcode'];
        }

        return $status['running'];
    }

    public function signal(int $signal): void
    {
        if ($this->isRunning()) {
            \posix_kill($this->pid, $signal);
        }
    }

    /** Stops the daemon (SIGTERM unless told otherwise) and returns its exit code, -1 if killed. */
    public function stop(int $signal = \SIGTERM, float $timeout = 10.0): int
    {
        if ($this->isRunning()) {
            \posix_kill($this->pid, $signal);
            if ($signal !== \SIGCONT && $signal !== \SIGKILL) {
                \posix_kill($this->pid, \SIGCONT); // a stopped daemon must run to see SIGTERM
            }
            $deadline = \microtime(true) + $timeout;
            while ($this->isRunning() && \microtime(true) < $deadline) {
                \usleep(5_000);
            }
            if ($this->isRunning()) {
                \posix_kill($this->pid, \SIGKILL);
                while ($this->isRunning()) {
                    \usleep(5_000);
                }
            }
        }
        if (\is_resource($this->process)) {
            \proc_close($this->process);
        }
        @\unlink($this->logFile);
        if ($this->exitCode !== 0 && \file_exists($this->socketPath)) {
            @\unlink($this->socketPath); // a killed daemon cannot remove it
        }

        return $this->exitCode ?? -1;
    }
}
