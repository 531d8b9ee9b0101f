<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Tarantool;

use Bobbin\Tests\Support\ServerProcess;

/**
 * A tarantool of a test's own on 127.0.0.1 (configured as scripts/tarantool.d/init.lua does: the
 * user bobbin/bobbin, nothing durable), in the foreground so its PID is the server's. $beforeUsers
 * is Lua run after box.cfg and before the user exists, $cfg more box.cfg options ("name = value,").
 */
final class PrivateTarantool
{
    public static function start(string $beforeUsers = '', bool $waitForUsers = true, string $cfg = ''): ServerProcess
    {
        return ServerProcess::start(
            'tarantool-private',
            static function (string $directory, int $port) use ($beforeUsers, $cfg): array {
                \file_put_contents($directory . '/init.lua', <<<LUA
                    box.cfg{
                        listen = '127.0.0.1:$port',
                        work_dir = '$directory',
                        wal_mode = 'none',
                        memtx_memory = 64 * 1024 * 1024,
                        log = '$directory/tarantool.log',
                        $cfg
                    }
                    $beforeUsers
                    box.schema.user.create('bobbin', {password = 'bobbin', if_not_exists = true})
                    box.schema.user.grant('bobbin', 'super', nil, nil, {if_not_exists = true})
                    box.schema.space.create('things', {if_not_exists = true})
                    box.space.things:create_index('primary', {if_not_exists = true})
                    box.space.things:replace({1, 'one'})
                    io.open('$directory/ready', 'w'):close()
                    LUA);
                \exec('rm -f ' . \escapeshellarg($directory) . '/*.snap ' . \escapeshellarg($directory) . '/*.xlog ' . \escapeshellarg($directory) . '/ready');

                return ['tarantool', $directory . '/init.lua'];
            },
            static fn (string $directory, int $port): bool => ServerProcess::answers($port, null, 'Tarantool') && (!$waitForUsers || \is_file($directory . '/ready')),
        );
    }

    public static function url(ServerProcess $server): string
    {
        return 'tarantool://bobbin:bobbin@127.0.0.1:' . $server->port;
    }
}
