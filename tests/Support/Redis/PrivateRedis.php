<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

use Bobbin\Tests\Support\ServerProcess;

/** A redis-server of a test's own on 127.0.0.1 (no password, nothing persisted). */
final class PrivateRedis
{
    public static function start(): ServerProcess
    {
        return ServerProcess::start(
            'redis-private',
            static fn (string $directory, int $port): array => ['redis-server', '--port', (string) $port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', $directory, '--daemonize', 'no'],
            static fn (string $directory, int $port): bool => ServerProcess::answers($port, "PING\r\n", '+PONG'),
        );
    }

    public static function url(ServerProcess $server): string
    {
        return 'redis://127.0.0.1:' . $server->port;
    }
}
