<?php

declare(strict_types=1);

namespace Bobbin\Bench\Load;

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Server\Server;

/**
 * Many keep-alive connections that connect and say nothing (issue 41): opened as fast as this
 * process can, non-blocking, held while the server's memory is read, then a fresh client's
 * request is timed beside them. What the server pays per connection not yet sending is its PSS
 * growth over the connections it accepted (socket descriptors in /proc/PID/fd).
 */
final class IdleConnections
{
    /** @var list<resource> */
    private array $sockets = [];

    private function __construct()
    {
    }

    /**
     * @return array<string, array{float, string}> metric => [value, unit]
     */
    public static function measure(Server $server, int $count, float $settleSeconds): array
    {
        $held = new self();
        $pids = ProcessTree::expand($server->rootPids());
        $before = ProcessTree::pssKb($pids);
        $socketsBefore = self::socketDescriptors($pids);
        $url = \parse_url($server->baseUrl());
        $address = \sprintf('tcp://%s:%d', $url['host'] ?? '127.0.0.1', $url['port'] ?? 80);
        $started = \microtime(true);
        try {
            for ($i = 0; $i < $count; $i++) {
                $socket = @\stream_socket_client($address, $code, $message, 5.0, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT);
                if ($socket === false) {
                    break;
                }
                $held->sockets[] = $socket;
            }
            $opened = \microtime(true) - $started;
            \usleep((int) ($settleSeconds * 1e6));
            $pids = ProcessTree::expand($server->rootPids());
            $after = ProcessTree::pssKb($pids);
            // A server that died is a zombie until it is reaped: still in /proc, no memory.
            $alive = $after > 0;
            $accepted = self::socketDescriptors($pids) - $socketsBefore;
            $fresh = [];
            for ($i = 0; $i < 5 && $alive; $i++) {
                $fresh[] = self::freshRequestSeconds($address);
            }
            \sort($fresh);
        } finally {
            foreach ($held->sockets as $socket) {
                @\fclose($socket);
            }
        }

        return [
            'idle_opened' => [(float) \count($held->sockets), 'connections'],
            'idle_open_seconds' => [$opened, 's'],
            'idle_accepted' => [(float) \max(0, $accepted), 'connections'],
            'idle_server_alive' => [$alive ? 1.0 : 0.0, 'bool'],
            'idle_pss_growth_mb' => [($after - $before) / 1024, 'MiB'],
            'idle_kib_per_connection' => [$accepted > 0 ? ($after - $before) / $accepted : 0.0, 'KiB'],
            'idle_fresh_ms' => [$fresh === [] ? -1.0 : $fresh[\intdiv(\count($fresh), 2)] * 1000, 'ms'],
        ];
    }

    /** Seconds from connecting to the end of the answer of one GET / (Connection: close); 10 s when none came. */
    private static function freshRequestSeconds(string $address): float
    {
        $start = \microtime(true);
        $socket = @\stream_socket_client($address, $code, $message, 10.0);
        if ($socket === false) {
            return 10.0;
        }
        \stream_set_timeout($socket, 10);
        \fwrite($socket, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        $answer = (string) \stream_get_contents($socket);
        \fclose($socket);

        return \str_starts_with($answer, 'HTTP/1.1 200') ? \microtime(true) - $start : 10.0;
    }

    /** @param list<int> $pids */
    private static function socketDescriptors(array $pids): int
    {
        $count = 0;
        foreach ($pids as $pid) {
            foreach (@\scandir("/proc/$pid/fd") ?: [] as $fd) {
                if (\str_starts_with((string) @\readlink("/proc/$pid/fd/$fd"), 'socket:')) {
                    $count++;
                }
            }
        }

        return $count;
    }
}
