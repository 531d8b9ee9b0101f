<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Async;

use Bobbin\Async\FileSender;
use PHPUnit\Framework\TestCase;

/** sendfile(2) through FFI onto a non-blocking socket: bytes from an offset, and "0" when the socket is full. */
final class FileSenderTest extends TestCase
{
    public function testAFileGoesOutFromItsOffsetAndAFullSocketTakesNothingWithoutBlocking(): void
    {
        $sender = FileSender::instance();
        if ($sender === null) {
            self::markTestSkipped('FFI is not available');
        }
        $path = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-sendfile-');
        $contents = \random_bytes(8 * 1048576);
        \file_put_contents($path, $contents);
        $file = \fopen($path, 'rb');
        [$out, $in] = (array) \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsResource($file);
        self::assertIsResource($out);
        self::assertIsResource($in);
        \stream_set_blocking($out, false);
        try {
            self::assertSame(10, $sender->send($out, $file, 5, 10));
            self::assertSame(\substr($contents, 5, 10), \fread($in, 100));

            $sent = 0;
            while (($n = $sender->send($out, $file, $sent, \strlen($contents) - $sent)) > 0) {
                $sent += $n;
            }
            self::assertSame(0, $n, 'a full socket takes nothing and says so');
            self::assertLessThan(\strlen($contents), $sent);
            \stream_set_blocking($in, true);
            self::assertSame(\substr($contents, 0, 65536), \stream_get_contents($in, 65536));
        } finally {
            \fclose($out);
            \fclose($in);
            \fclose($file);
            \unlink($path);
        }
    }

    public function testAStreamWithoutADescriptorIsRefusedSoThatTheCallerSendsAnotherWay(): void
    {
        $sender = FileSender::instance();
        if ($sender === null) {
            self::markTestSkipped('FFI is not available');
        }
        $memory = \fopen('php://memory', 'r+');
        self::assertIsResource($memory);

        self::assertSame(-1, $sender->send($memory, $memory, 0, 1));
    }
}
