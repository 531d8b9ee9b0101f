<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\TimeoutCancellation;
use Bobbin\Ipc\Codec\FrameCodec;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcException;
use Bobbin\Ipc\SocketClient;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;

/**
 * What a socket connection reads reaches the frame rules (FrameCodecTest has them byte by byte):
 * a daemon that answers with a frame no answer can be gets an IpcException, never a wrong answer
 * or a hang. The daemon is a fake served by the test process's own loop, since the real one
 * never breaks the protocol.
 */
final class SocketProtocolViolationTest extends TestCase
{
    private string $socketPath;
    /** @var list<resource> */
    private array $streams = [];
    /** @var list<string> */
    private array $watchers = [];

    protected function setUp(): void
    {
        $this->socketPath = \sys_get_temp_dir() . '/bobbin-fake-ipcd-' . \getmypid() . '.sock';
        @\unlink($this->socketPath);
    }

    protected function tearDown(): void
    {
        foreach ($this->watchers as $watcher) {
            EventLoop::cancel($watcher);
        }
        foreach ($this->streams as $stream) {
            if (\is_resource($stream)) {
                \fclose($stream);
            }
        }
        @\unlink($this->socketPath);
    }

    /** @return iterable<string, array{string}> */
    public static function wrongAnswers(): iterable
    {
        yield 'a control frame' => [FrameCodec::controlFrame("\x01\x00")];
        yield 'a frame over the client\'s limit' => [\pack('V', 1024)];
        yield 'two answers to one request' => [FrameCodec::frame('one') . FrameCodec::frame('two')];
    }

    #[DataProvider('wrongAnswers')]
    public function testAnAnswerThatBreaksTheFrameRulesIsAnIpcException(string $answer): void
    {
        $this->serve($answer);
        $client = new SocketClient(Endpoint::unix($this->socketPath), maxFrame: 64);

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('The IPC daemon sent an unexpected frame');

        $client->request('question', new TimeoutCancellation(2.0));
    }

    /** Accepts one connection and answers its first request frame with $answer, as raw bytes. */
    private function serve(string $answer): void
    {
        $server = \stream_socket_server('unix://' . $this->socketPath, $errno, $error);
        self::assertNotFalse($server, $error);
        $this->streams[] = $server;
        $this->watchers[] = EventLoop::onReadable($server, function (string $id, $server) use ($answer): void {
            EventLoop::cancel($id);
            $connection = \stream_socket_accept($server, 0);
            self::assertNotFalse($connection);
            $this->streams[] = $connection;
            $request = '';
            $this->watchers[] = EventLoop::onReadable($connection, static function (string $id, $connection) use ($answer, &$request): void {
                $request .= (string) \fread($connection, 65536);
                if (\strlen($request) >= 4 && \strlen($request) >= 4 + \unpack('V', $request)[1]) {
                    EventLoop::cancel($id);
                    \fwrite($connection, $answer);
                }
            });
        });
    }
}
