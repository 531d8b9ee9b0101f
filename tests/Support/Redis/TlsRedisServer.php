<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

use Bobbin\Tests\Support\Tls\TestCertificates;

/**
 * A redis-server of a test's own that speaks only TLS, on 127.0.0.1, presenting one of
 * TestCertificates' server certificates; started without a shell so its PID is the server's,
 * stopped by that PID only. Nothing persisted; the default user has no password.
 */
final class TlsRedisServer
{
    /** @param resource $process */
    private function __construct(private $process, public readonly int $port)
    {
    }

    public static function start(string $certificate): self
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($probe !== false);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);
        $port = (int) \substr($name, \strrpos($name, ':') + 1);
        $directory = \dirname(__DIR__, 3) . '/var/redis-tls-tests';
        @\mkdir($directory, 0700, true);
        $process = \proc_open([
            'redis-server', '--port', '0', '--tls-port', (string) $port, '--bind', '127.0.0.1',
            '--tls-cert-file', TestCertificates::certificate($certificate), '--tls-key-file', TestCertificates::key($certificate),
            '--tls-ca-cert-file', TestCertificates::ca(), '--tls-auth-clients', 'no',
            '--save', '', '--appendonly', 'no', '--dir', $directory, '--logfile', $directory . '/redis-' . $port . '.log',
        ], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('Cannot start redis-server');
        }
        $server = new self($process, $port);
        $deadline = \microtime(true) + 10;
        while (\microtime(true) < $deadline) {
            $socket = @\stream_socket_client('tcp://127.0.0.1:' . $port, $errno, $error, 1);
            if ($socket !== false) {
                \fclose($socket);

                return $server;
            }
            \usleep(20_000);
        }
        $server->stop();
        throw new \RuntimeException('redis-server with TLS did not start: ' . (string) @\file_get_contents($directory . '/redis-' . $port . '.log'));
    }

    public function stop(): void
    {
        if (!\is_resource($this->process)) {
            return;
        }
        $pid = (int) \proc_get_status($this->process)['pid'];
        \posix_kill($pid, \SIGTERM);
        \proc_close($this->process);
    }
}
