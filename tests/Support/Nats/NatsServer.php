<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

/**
 * A nats-server of a test's own (auth, TLS, a restart mid-run), with its config and JetStream
 * store in a private directory under var/; started without a shell so its PID is the server's,
 * stopped by that PID only.
 */
final class NatsServer
{
    /** @var resource|null */
    private $process = null;
    private int $pid = 0;

    private function __construct(public readonly string $directory, public readonly int $port, private readonly string $extraConfig)
    {
    }

    /** @param string $extraConfig lines added to the config (authorization { … }, tls { … }) */
    public static function start(string $extraConfig = '', bool $jetStream = true): self
    {
        $directory = \dirname(__DIR__, 3) . '/var/nats-tests/' . \bin2hex(\random_bytes(4));
        \mkdir($directory . '/store', 0700, true);
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($probe !== false);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);
        $port = (int) \substr($name, \strrpos($name, ':') + 1);
        $server = new self($directory, $port, $extraConfig . ($jetStream ? "\njetstream { store_dir: \"$directory/store\", max_memory_store: 64MB, max_file_store: 256MB }\n" : ''));
        $server->launch();

        return $server;
    }

    public function url(string $credentials = ''): string
    {
        return \sprintf('nats://%s127.0.0.1:%d', $credentials === '' ? '' : $credentials . '@', $this->port);
    }

    public function launch(): void
    {
        $config = $this->directory . '/nats.conf';
        \file_put_contents($config, \sprintf("listen: 127.0.0.1:%d\nlog_file: \"%s/nats.log\"\nmax_payload: 8MB\n%s\n", $this->port, $this->directory, $this->extraConfig));
        $binary = \is_executable('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
        $process = \proc_open([$binary, '-c', $config], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start nats-server');
        }
        $this->process = $process;
        $this->pid = (int) \proc_get_status($process)['pid'];
        $deadline = \microtime(true) + 10;
        while (\microtime(true) < $deadline) {
            $socket = @\stream_socket_client('tcp://127.0.0.1:' . $this->port, $errno, $error, 1);
            if ($socket !== false) {
                \stream_set_timeout($socket, 1);
                $line = (string) \fgets($socket);
                \fclose($socket);
                if (\str_starts_with($line, 'INFO ')) {
                    return;
                }
            }
            if (!\proc_get_status($process)['running']) {
                break;
            }
            \usleep(20_000);
        }
        $log = @\file_get_contents($this->directory . '/nats.log');
        $this->stop();
        throw new \RuntimeException('nats-server did not start: ' . \substr((string) $log, -2000));
    }

    public function pid(): int
    {
        return $this->pid;
    }

    /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it. */
    public function stop(): void
    {
        if ($this->process === null) {
            return;
        }
        \posix_kill($this->pid, \SIGTERM);
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

    /** Stops and starts again on the same port with the same store. */
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
}
