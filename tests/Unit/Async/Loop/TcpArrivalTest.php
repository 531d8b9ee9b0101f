<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async\Loop;

use Bobbin\Async\Loop\TcpArrival;
use PHPUnit\Framework\TestCase;

final class TcpArrivalTest extends TestCase
{
    public function testTheKernelsReceiveTimeOfATcpSocketIsWhenTheBytesCameNotWhenItIsAsked(): void
    {
        if (!\extension_loaded('ffi')) {
            self::markTestSkipped('FFI is not loaded');
        }
        $server = \stream_socket_server('tcp://127.0.0.1:0') ?: throw new \RuntimeException('no server');
        $client = \stream_socket_client('tcp://' . \stream_socket_get_name($server, false)) ?: throw new \RuntimeException('no client');
        $accepted = \stream_socket_accept($server) ?: throw new \RuntimeException('no accept');
        $sentAt = \microtime(true);
        \fwrite($client, 'GET / HTTP/1.1');
        \usleep(60_000);

        $received = TcpArrival::of($accepted);

        self::assertNotNull($received);
        // tcpi_last_data_recv counts in jiffies (1–4 ms), hence the margins.
        self::assertGreaterThan($sentAt - 0.01, $received);
        self::assertLessThan($sentAt + 0.03, $received);
        // Asked again, the same bytes are dated the same.
        \usleep(20_000);
        self::assertEqualsWithDelta($received, TcpArrival::of($accepted), 0.01);
    }

    public function testAStreamThatIsNoTcpSocketHasNoKernelReceiveTime(): void
    {
        [$one, $other] = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0) ?: throw new \RuntimeException('no pair');
        \fwrite($other, 'x');

        self::assertNull(TcpArrival::of($one));
        self::assertNull(TcpArrival::of('not a stream'));
    }
}
