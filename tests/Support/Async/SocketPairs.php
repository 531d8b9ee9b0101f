<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Async;

use PHPUnit\Framework\Assert;

/** Connected in-process sockets for loop tests. */
trait SocketPairs
{
    /**
     * Two connected non-blocking in-process sockets. Keep both ends in variables: once one end
     * is freed the other reads EOF, which counts as readable.
     *
     * @return array{resource, resource}
     */
    protected static function socketPair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        Assert::assertIsArray($pair);
        foreach ($pair as $socket) {
            \stream_set_blocking($socket, false);
            \stream_set_read_buffer($socket, 0);
        }

        return $pair;
    }
}
