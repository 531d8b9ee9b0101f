<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\TimeoutCancellation;
use Bobbin\Ipc\IpcException;
use Bobbin\Ipc\ShmClient;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;

/**
 * A daemon that breaks the shared-memory protocol (a wrong handshake, ring positions out of
 * bounds) gets a clear IpcException, never a crash or a hang. The rules themselves are tested
 * case by case without a daemon (tests/Unit/Ipc/Codec); these check that what the connection
 * reads from the socket and the mapped segment reaches them. The daemon here is a fake served by
 * the event loop of the test process: the client waits for the reply through that loop, so the
 * fake answers while the client waits.
 */
final class ShmProtocolViolationTest extends TestCase
{
    private const CONTROL_FLAG = 0x80000000;
    private const OP_SHM_OPEN = 1;

    private string $socketPath;
    private string $segmentName;
    /** @var resource|null */
    private $server = null;
    private ?string $watcher = null;

    protected function setUp(): void
    {
        if (!\extension_loaded('ffi') || !\extension_loaded('sockets') || !\is_dir('/dev/shm')) {
            self::markTestSkipped('needs ext-ffi, ext-sockets and /dev/shm');
        }
        $this->socketPath = \sys_get_temp_dir() . '/bobbin-fake-ipcd-' . \getmypid() . '.sock';
        $this->segmentName = '/bobbin-fake-segment-' . \getmypid();
        @\unlink($this->socketPath);
    }

    protected function tearDown(): void
    {
        if ($this->watcher !== null) {
            EventLoop::cancel($this->watcher);
        }
        if (\is_resource($this->server)) {
            \fclose($this->server);
        }
        @\unlink($this->socketPath);
        @\unlink('/dev/shm' . $this->segmentName);
    }

    public function testAHeaderThatDisagreesWithTheReplyIsAnIpcException(): void
    {
        $this->createSegment(4096 + 2 * 8192, 1 << 30, 1 << 30);
        $this->serve(fn (): string => $this->reply(0, 8192, 8192, 4096 + 2 * 8192));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('does not match the handshake (rings of 8192 and 8192 bytes in 20480 bytes; its header says 1073741824 and 1073741824)');

        $this->requestWithATimeout();
    }

    public function testRingsThatDoNotFitTheSegmentAreAnIpcException(): void
    {
        $this->createSegment(8192, 1 << 20, 1 << 20);
        $this->serve(fn (): string => $this->reply(0, 1 << 20, 1 << 20, 8192));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('does not match the handshake');

        $this->requestWithATimeout();
    }

    public function testARefusalIsAnIpcException(): void
    {
        $this->serve(fn (): string => $this->reply(1, 0, 0, 0));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon refused the shared-memory channel');

        $this->requestWithATimeout();
    }

    public function testAShortReplyIsAnIpcException(): void
    {
        $this->serve(static fn (): string => "\x05\x00\x00\x80");

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('Bad shared-memory handshake reply');

        $this->requestWithATimeout();
    }

    public function testADaemonThatHangsUpDuringTheHandshakeIsAnIpcException(): void
    {
        $this->serve(null);

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon closed the connection during the shared-memory handshake');

        $this->requestWithATimeout();
    }

    public function testADaemonThatNeverAnswersTheHandshakeTimesOut(): void
    {
        $this->serve(static fn (): string => '');

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The shared-memory handshake timed out after 0.2 s');

        (new ShmClient($this->socketPath, 8192, connectTimeout: 0.2))->request('x');
    }

    public function testAResponseTailBehindTheHeadIsAnIpcExceptionNotACrash(): void
    {
        // The response tail (uint64 at byte 192) as a negative PHP integer: a read of that many
        // bytes would crash the process.
        $this->createSegment(4096 + 2 * 8192, 8192, 8192, [192 => \pack('P', -16)]);
        $this->serve(fn (): string => $this->reply(0, 8192, 8192, 4096 + 2 * 8192));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon published a response position outside its ring (tail -16, head 0, capacity 8192)');

        $this->requestWithATimeout();
    }

    public function testAResponseTailMoreThanARingAheadIsAnIpcException(): void
    {
        $this->createSegment(4096 + 2 * 8192, 8192, 8192, [192 => \pack('P', 3 * 8192)]);
        $this->serve(fn (): string => $this->reply(0, 8192, 8192, 4096 + 2 * 8192));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon published a response position outside its ring (tail 24576, head 0, capacity 8192)');

        $this->requestWithATimeout();
    }

    public function testAWrapMarkerThatSkipsPastTheTailIsAnIpcException(): void
    {
        // One 8-byte record published (tail 8) that is a wrap marker: skipping to the ring's
        // start would put the head past the tail.
        $this->createSegment(4096 + 2 * 8192, 8192, 8192, [192 => \pack('P', 8), 4096 + 8192 => "\xFF\xFF\xFF\xFF"]);
        $this->serve(fn (): string => $this->reply(0, 8192, 8192, 4096 + 2 * 8192));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon wrote a malformed response record');

        $this->requestWithATimeout();
    }

    /** A request bounded in time: a client that accepted a bad handshake would wait for ever. */
    private function requestWithATimeout(): void
    {
        (new ShmClient($this->socketPath, 8192, connectTimeout: 2.0))->request('x', new TimeoutCancellation(2.0));
    }

    /** @param array<int, string> $patches bytes to write at these offsets of the header */
    private function createSegment(int $size, int $requestCapacity, int $responseCapacity, array $patches = []): void
    {
        $segment = \str_pad(\pack('V4', 0, 0, $requestCapacity, $responseCapacity), $size, "\0");
        foreach ($patches as $offset => $bytes) {
            $segment = \substr_replace($segment, $bytes, $offset, \strlen($bytes));
        }
        \file_put_contents('/dev/shm' . $this->segmentName, $segment);
    }

    /** The reply of docs/IPC.md's handshake: a control frame naming the segment. */
    private function reply(int $status, int $requestCapacity, int $responseCapacity, int $segmentSize): string
    {
        $body = \pack('CCVVVv', self::OP_SHM_OPEN, $status, $requestCapacity, $responseCapacity, $segmentSize, \strlen($this->segmentName)) . $this->segmentName;

        return \pack('V', self::CONTROL_FLAG | \strlen($body)) . $body;
    }

    /**
     * Accepts one connection, reads the client's hello and sends $reply() with two descriptors
     * for doorbells (an empty reply sends nothing and keeps the connection open); with no
     * $reply it hangs up instead.
     *
     * @param (\Closure(): string)|null $reply
     */
    private function serve(?\Closure $reply): void
    {
        $server = \stream_socket_server('unix://' . $this->socketPath, $errno, $error);
        self::assertNotFalse($server, $error);
        $this->server = $server;
        $this->watcher = EventLoop::onReadable($server, function (string $id, $server) use ($reply): void {
            EventLoop::cancel($id);
            $connection = \stream_socket_accept($server, 0);
            self::assertNotFalse($connection);
            \stream_set_blocking($connection, true);
            \fread($connection, 9); // the hello: length word, op, ring capacity
            if ($reply === null) {
                \fclose($connection);

                return;
            }
            $bytes = $reply();
            if ($bytes === '') {
                $this->server = $connection; // kept open (and closed) by tearDown()
                \fclose($server);

                return;
            }
            $socket = \socket_import_stream($connection);
            self::assertNotFalse($socket);
            $doorbells = [\fopen('/dev/null', 'r+'), \fopen('/dev/null', 'r+')];
            \socket_sendmsg($socket, [
                'iov' => [$bytes],
                'control' => [['level' => \SOL_SOCKET, 'type' => \SCM_RIGHTS, 'data' => $doorbells]],
            ], 0);
            $this->server = $connection; // the lifeline stays open while the client runs
            \fclose($server);
        });
    }
}
