<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support;

/**
 * A server a test starts for itself (redis-server, tarantool) in a private directory under
 * var/, without a shell so that its PID is the server's: frozen, thawed, stopped and started
 * again by that PID only, on the same port.
 */
final class ServerProcess
{
    /** @var resource|null */
    private $process = null;
    private int $pid = 0;

    /**
     * @param \Closure(string $directory, int $port): list<string> $command
     * @param \Closure(string $directory, int $port): bool $ready
     */
    private function __construct(public readonly string $directory, public readonly int $port, private readonly \Closure $command, private readonly \Closure $ready)
    {
    }

    /**
     * @param \Closure(string $directory, int $port): list<string> $command
     * @param \Closure(string $directory, int $port): bool $ready whether it answers yet
     */
    public static function start(string $name, \Closure $command, \Closure $ready): self
    {
        $directory = \dirname(__DIR__, 2) . '/var/' . $name . '-' . \bin2hex(\random_bytes(4));
        \mkdir($directory, 0700, true);
        $server = new self($directory, self::freePort(), $command, $ready);
        $server->launch();

        return $server;
    }

    public function launch(): void
    {
        $log = $this->directory . '/server.log';
        $process = \proc_open(($this->command)($this->directory, $this->port), [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $this->directory);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start the server in ' . $this->directory);
        }
        $this->process = $process;
        $this->pid = (int) \proc_get_status($process)['pid'];
        $deadline = \microtime(true) + 15;
        while (\microtime(true) < $deadline) {
            \clearstatcache();
            if (($this->ready)($this->directory, $this->port)) {
                return;
            }
            if (!\proc_get_status($process)['running']) {
                break;
            }
            \usleep(20_000);
        }
        $this->stop();
        throw new \RuntimeException('The server did not start: ' . \substr((string) @\file_get_contents($log), -2000));
    }

    public function pid(): int
    {
        return $this->pid;
    }

    /** SIGSTOP: the kernel still accepts connections on its port, nobody answers them. */
    public function freeze(): void
    {
        if ($this->process !== null) {
            \posix_kill($this->pid, \SIGSTOP);
        }
    }

    public function thaw(): void
    {
        if ($this->process !== null) {
            \posix_kill($this->pid, \SIGCONT);
        }
    }

    /** SIGTERM (SIGKILL after 5 s), and waits for it. */
    public function stop(): void
    {
        if ($this->process === null) {
            return;
        }
        \posix_kill($this->pid, \SIGTERM);
        \posix_kill($this->pid, \SIGCONT);
        $deadline = \microtime(true) + 5;
        while (\proc_get_status($this->process)['running'] && \microtime(true) < $deadline) {
            \usleep(10_000);
        }
        if (\proc_get_status($this->process)['running']) {
            \posix_kill($this->pid, \SIGKILL);
        }
        \proc_close($this->process);
        $this->process = null;
    }

    public function restart(): void
    {
        $this->stop();
        $this->launch();
    }

    public function remove(): void
    {
        $this->stop();
        \exec('rm -rf ' . \escapeshellarg($this->directory));
    }

    public static function freePort(): int
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($probe !== false);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    /** Whether something accepts a connection on $port and sends what $expect matches first (null: nothing expected). */
    public static function answers(int $port, ?string $send, string $expect): bool
    {
        $socket = @\stream_socket_client('tcp://127.0.0.1:' . $port, $errno, $error, 1);
        if ($socket === false) {
            return false;
        }
        \stream_set_timeout($socket, 1);
        if ($send !== null) {
            \fwrite($socket, $send);
        }
        $line = (string) \fgets($socket);
        \fclose($socket);

        return \str_contains($line, $expect);
    }
}
