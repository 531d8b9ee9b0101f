<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Server;
use Bobbin\Http\ServerConfig;
use Bobbin\Http\StderrLogger;
use Bobbin\Tests\Support\Http\FiberHttpClient;
use Nyholm\Psr7\Response;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Log\LogLevel;

/**
 * The Server API the master process builds on, driven in this process: a listening socket bound
 * beforehand, clients in other fibers on the same loop, a graceful stop awaited as a future.
 */
final class InProcessServerTest extends TestCase
{
    /** @var resource */
    private $log;

    protected function setUp(): void
    {
        $this->log = \fopen('php://memory', 'w+') ?: throw new \RuntimeException('no memory stream');
    }

    private function server(ServerConfig $config, \Closure $application): Server
    {
        $socket = Server::listen('127.0.0.1:0');

        return new Server($config, new ClosureHandler($application), new StderrLogger(LogLevel::DEBUG, $this->log), $socket);
    }

    /**
     * A request from a non-blocking client in its own fiber; resolves to the raw response.
     *
     * @return Future<string>
     */
    private static function request(string $address, string $bytes): Future
    {
        return FiberHttpClient::exchange($address, $bytes);
    }

    public function testAServerOnAPreboundSocketServesFibersOfTheSameLoopAndStopsGracefully(): void
    {
        $server = $this->server(new ServerConfig(), static function (ServerRequestInterface $request): ResponseInterface {
            Async::delay(0.05);

            return new Response(200, [], 'served ' . $request->getUri()->getPath());
        });
        $server->start();
        self::assertMatchesRegularExpression('/^127\.0\.0\.1:\d+$/', $server->address());

        $responses = Future::awaitAll([
            self::request($server->address(), "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
            self::request($server->address(), "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ]);
        self::assertStringEndsWith('served /a', $responses[0]);
        self::assertStringEndsWith('served /b', $responses[1]);

        $inFlight = self::request($server->address(), "GET /c HTTP/1.1\r\nHost: x\r\n\r\n");
        Async::delay(0.02);
        $server->stop(5.0)->await();
        $last = $inFlight->await();
        self::assertStringContainsString("Connection: close\r\n", $last);
        self::assertStringEndsWith('served /c', $last);
        self::assertSame(0, $server->connectionCount());
    }

    public function testTheDrainDeadlineClosesRequestsThatTakeTooLong(): void
    {
        $server = $this->server(new ServerConfig(), static function (): ResponseInterface {
            Async::delay(5.0);

            return new Response(200, [], 'too late');
        });
        $server->start();
        $stuck = self::request($server->address(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        Async::delay(0.05);

        $started = \microtime(true);
        $server->stop(0.2)->await();

        self::assertLessThan(3.0, \microtime(true) - $started);
        self::assertSame('', $stuck->await());
        \rewind($this->log);
        self::assertStringContainsString('Drain deadline passed', (string) \stream_get_contents($this->log));
    }
}
