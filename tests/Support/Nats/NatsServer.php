<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

use Bobbin\Tests\Support\ServerProcess;

/**
 * A nats-server of a test's own (auth, TLS, a restart mid-run), with its config and JetStream
 * store in a private directory under var/: a ServerProcess (no shell, so its PID is the
 * server's; stopped by that PID only) with nats-server's configuration and readiness probe.
 */
final class NatsServer
{
    public readonly string $directory;
    public readonly int $port;

    private function __construct(private readonly ServerProcess $process)
    {
        $this->directory = $process->directory;
        $this->port = $process->port;
    }

    /** @param string $extraConfig lines added to the config (authorization { … }, tls { … }) */
    public static function start(string $extraConfig = '', bool $jetStream = true): self
    {
        $binary = \is_executable('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';

        return new self(ServerProcess::start(
            'nats-tests',
            static function (string $directory, int $port) use ($binary, $extraConfig, $jetStream): array {
                $store = $jetStream ? "\njetstream { store_dir: \"$directory/store\", max_memory_store: 64MB, max_file_store: 256MB }\n" : '';
                $config = $directory . '/nats.conf';
                \file_put_contents($config, \sprintf("listen: 127.0.0.1:%d\nlog_file: \"%s/server.log\"\nmax_payload: 8MB\n%s%s\n", $port, $directory, $extraConfig, $store));

                return [$binary, '-c', $config];
            },
            static function (string $directory, int $port): bool {
                $socket = @\stream_socket_client('tcp://127.0.0.1:' . $port, $errno, $error, 1);
                if ($socket === false) {
                    return false;
                }
                \stream_set_timeout($socket, 1);
                $line = (string) \fgets($socket);
                \fclose($socket);

                return \str_starts_with($line, 'INFO ');
            },
        ));
    }

    public function url(string $credentials = ''): string
    {
        return \sprintf('nats://%s127.0.0.1:%d', $credentials === '' ? '' : $credentials . '@', $this->port);
    }

    /** Starts it again after stop(), on the same port with the same store. */
    public function launch(): void
    {
        $this->process->launch();
    }

    public function pid(): int
    {
        return $this->process->pid();
    }

    public function stop(): void
    {
        $this->process->stop();
    }

    /** Stops and starts again on the same port with the same store. */
    public function restart(): void
    {
        $this->process->restart();
    }

    public function remove(): void
    {
        $this->process->remove();
    }
}
