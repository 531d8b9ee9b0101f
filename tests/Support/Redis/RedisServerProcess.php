<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Redis;

use Bobbin\Tests\Support\ServerProcess;

/** A bare redis-server on 127.0.0.1 (no password, nothing persisted) as a ServerProcess a test can freeze (SIGSTOP) and resume; PrivateRedis is the scripts/redis one. */
final class RedisServerProcess
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
