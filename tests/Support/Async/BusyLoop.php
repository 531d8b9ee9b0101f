<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Async;

use Bobbin\Async\Async;
use Closure;

/**
 * Runs a test body while the loop watches a silent stream, as a server watches its listening
 * socket: the loop then polls on every turn, which is what a test of what the loop learns from
 * its polls (an idle connection's socket found quiet, or not) needs.
 */
final class BusyLoop
{
    /**
     * @template T
     * @param Closure(): T $body
     * @return T
     */
    public static function during(Closure $body): mixed
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        \assert(\is_array($pair));
        [$listening, $peer] = $pair;
        $watch = Async::watchReadable($listening, static function (): void {
        });
        try {
            return $body();
        } finally {
            Async::cancelWatch($watch);
            \fclose($peer);
            \fclose($listening);
        }
    }
}
