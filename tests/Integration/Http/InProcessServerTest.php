<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Connection;
use Bobbin\Http\Server;
use Bobbin\Http\ServerConfig;
use Bobbin\Log\StderrLogger;
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

    public function testAKeepAliveConnectionHoldsNoFiberBetweenRequestsAndIsServedWhenItSendsAgain(): void
    {
        $server = $this->server(new ServerConfig(), static fn (ServerRequestInterface $request): ResponseInterface => new Response(200, [], 'served ' . $request->getUri()->getPath()));
        $server->start();
        $client = \stream_socket_client('tcp://' . $server->address()) ?: throw new \RuntimeException('no connection');
        \stream_set_blocking($client, false);
        $exchange = static fn (string $path): string => Async::run(static function () use ($client, $path): string {
            \fwrite($client, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n");
            $response = '';
            while (!\str_ends_with($response, "served $path")) {
                Async::awaitReadable($client, 5.0);
                $response .= (string) \fread($client, 65536);
            }

            return $response;
        })->await();

        $tasksBefore = Async::tasksAlive();
        self::assertStringEndsWith('served /a', $exchange('/a'));
        // Since 29 Nov 2026 a connection gives its fiber up at once after each response, not
        // after PARK_AFTER_SECONDS (until then this asserted one task fewer once parked).
        $tasksBetweenRequests = Async::tasksAlive();
        Async::delay(Connection::PARK_AFTER_SECONDS + 1.5); // the sweeper looks once a second
        $tasksWhileParked = Async::tasksAlive();
        $second = $exchange('/b');
        $third = $exchange('/c');

        self::assertSame($tasksBefore, $tasksBetweenRequests, 'the connection holds a fiber between requests');
        self::assertSame($tasksBefore, $tasksWhileParked, 'the idle connection still holds its fiber');
        self::assertStringStartsWith('HTTP/1.1 200 OK', $second);
        self::assertStringEndsWith('served /b', $second);
        self::assertStringEndsWith('served /c', $third);
        \fclose($client);
        $server->stop(1.0)->await();
        self::assertSame(0, $server->connectionCount());
    }

    public function testAParkedConnectionIsClosedByAGracefulStop(): void
    {
        $server = $this->server(new ServerConfig(), static fn (): ResponseInterface => new Response(200, [], 'ok'));
        $server->start();
        $client = \stream_socket_client('tcp://' . $server->address()) ?: throw new \RuntimeException('no connection');
        \fwrite($client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        \stream_set_blocking($client, false);
        Async::delay(Connection::PARK_AFTER_SECONDS + 1.5);
        $tasks = Async::tasksAlive();

        $server->stop(1.0)->await();
        Async::delay(0.05);
        $received = (string) \fread($client, 65536);

        self::assertSame(0, $server->connectionCount());
        self::assertStringEndsWith('ok', $received);
        self::assertTrue(\feof($client) || \fread($client, 1) === '', 'the parked connection was not closed');
        self::assertLessThanOrEqual($tasks, Async::tasksAlive());
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
