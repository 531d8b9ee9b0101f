<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Ipc;

use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcClient;
use Bobbin\Ipc\ShmClient;
use Bobbin\Ipc\SocketClient;

/** Builds the client of one channel ("unix", "tcp", "shm") for a running test daemon. */
final class Channels
{
    /** @return array<string, array{string}> */
    public static function all(): array
    {
        return ['unix socket' => ['unix'], 'tcp' => ['tcp'], 'shared memory' => ['shm']];
    }

    public static function client(string $channel, IpcDaemon $daemon, int $ringCapacity = 1024 * 1024): IpcClient
    {
        return match ($channel) {
            'unix' => new SocketClient(Endpoint::unix($daemon->socketPath)),
            'tcp' => new SocketClient(Endpoint::tcp('127.0.0.1', $daemon->tcpPort)),
            'shm' => new ShmClient($daemon->socketPath, $ringCapacity, 5.0, 0.05),
            default => throw new \InvalidArgumentException("Unknown channel $channel"),
        };
    }
}
