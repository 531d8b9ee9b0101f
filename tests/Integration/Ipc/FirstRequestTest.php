<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Ipc;

use Bobbin\Async\Async;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\SocketClient;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Revolt\EventLoop;

/**
 * A connection's first request is written at once, not at the end of the loop's turn: a client
 * that connects per request (a plain script, a PHP-FPM request) would pay a turn each time.
 * The server here is scripted by the test, so it can look at the socket before the loop moves.
 */
final class FirstRequestTest extends TestCase
{
    /** @var resource|null */
    private $server = null;
    private string $path = '';

    protected function tearDown(): void
    {
        if ($this->server !== null) {
            \fclose($this->server);
        }
        if ($this->path !== '' && \file_exists($this->path)) {
            \unlink($this->path);
        }
    }

    /** @return array<string, array{bool}> */
    public static function callers(): array
    {
        return ['from {main}' => [false], 'from a fiber' => [true]];
    }

    #[DataProvider('callers')]
    public function testTheFirstRequestOfANewConnectionIsOnTheWireBeforeTheLoopTakesATurn(bool $inFiber): void
    {
        $client = new SocketClient($this->listen());
        $sentBeforeTheTurn = null;
        // Queued before the request, so it runs before anything the request defers to the turn.
        EventLoop::defer(function () use (&$sentBeforeTheTurn): void {
            $peer = \stream_socket_accept($this->server(), 1.0);
            self::assertNotFalse($peer);
            \stream_set_blocking($peer, false);
            $frame = (string) \fread($peer, 1024);
            $sentBeforeTheTurn = $frame === \pack('V', 5) . 'hello';
            // Answer whatever came, now or later, so the request completes either way.
            $answer = static function () use ($peer, $frame): void {
                while (\strlen($frame) < 9) {
                    $frame .= (string) \fread($peer, 1024);
                    Async::delay(0.001);
                }
                \fwrite($peer, \pack('V', 2) . 'ok');
            };
            Async::run($answer);
        });

        $request = static fn (): string => $client->request('hello');
        $answer = $inFiber ? Async::run($request)->await() : $request();

        self::assertSame('ok', $answer);
        self::assertTrue($sentBeforeTheTurn, 'the request was still queued when the loop took its turn');
        $client->close();
    }

    private function listen(): Endpoint
    {
        $this->path = \sys_get_temp_dir() . '/bobbin-first-request-' . \getmypid() . '.sock';
        $server = \stream_socket_server('unix://' . $this->path, $errno, $errstr);
        self::assertNotFalse($server, $errstr);
        $this->server = $server;

        return Endpoint::unix($this->path);
    }

    /** @return resource */
    private function server()
    {
        self::assertNotNull($this->server);

        return $this->server;
    }
}
