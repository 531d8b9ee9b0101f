<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Http\ClosureHandler;
use Bobbin\Http\RequestCancellation;
use Bobbin\Http\RequestIds;
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
 * The server makes a request's cancellation only when the application first reads or changes
 * the request's attributes (issue 41: paid only when used). What the application sees must be
 * what it saw when every request got its cancellation up front: the same attributes in the same
 * order, one cancellation for every copy of the request, cancelled by the request timeout and by
 * the connection closing even when first asked for after that.
 */
final class RequestAttributesOnDemandTest extends TestCase
{
    /** @var resource */
    private $log;

    protected function setUp(): void
    {
        $this->log = \fopen('php://memory', 'w+') ?: throw new \RuntimeException('no memory stream');
    }

    private function server(ServerConfig $config, \Closure $application): Server
    {
        $server = new Server($config, new ClosureHandler($application), new StderrLogger(LogLevel::DEBUG, $this->log), Server::listen('127.0.0.1:0'));
        $server->start();

        return $server;
    }

    public function testEveryCopyOfARequestHasTheSameCancellationAndTheAttributesKeepTheirOrder(): void
    {
        $seen = [];
        $server = $this->server(new ServerConfig(), static function (ServerRequestInterface $request) use (&$seen): ResponseInterface {
            $copy = $request->withHeader('X-Copy', '1'); // copied before the attributes were read
            $added = $request->withAttribute('route', 'home');
            $seen = [
                'keys' => \array_keys($added->getAttributes()),
                'same' => RequestCancellation::of($copy) === RequestCancellation::of($request)
                    && RequestCancellation::of($added) === RequestCancellation::of($request),
                'id' => $request->getAttribute(RequestIds::ATTRIBUTE),
                'without' => \array_keys($request->withoutAttribute(RequestCancellation::ATTRIBUTE)->getAttributes()),
                'requested' => RequestCancellation::of($request)?->isRequested(),
            ];

            return new Response(200, [], 'ok');
        });

        $response = FiberHttpClient::exchange($server->address(), "GET / HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-1\r\nConnection: close\r\n\r\n")->await();
        $server->stop(1.0)->await();

        self::assertStringEndsWith('ok', $response);
        self::assertSame([RequestCancellation::ATTRIBUTE, RequestIds::ATTRIBUTE, 'route'], $seen['keys']);
        self::assertTrue($seen['same'], 'copies of one request have different cancellations');
        self::assertSame('abc-1', $seen['id']);
        self::assertSame([RequestIds::ATTRIBUTE], $seen['without']);
        self::assertFalse($seen['requested']);
    }

    public function testACancellationFirstAskedForAfterTheRequestTimeoutIsCancelled(): void
    {
        $seen = null;
        $server = $this->server(new ServerConfig(requestTimeout: 0.2), static function (ServerRequestInterface $request) use (&$seen): ResponseInterface {
            Async::delay(0.6); // waits without the cancellation, past the timeout
            $seen = RequestCancellation::of($request)?->isRequested();

            return new Response(200, [], 'late');
        });

        $response = FiberHttpClient::exchange($server->address(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")->await();
        $server->stop(2.0)->await();

        self::assertTrue($seen, 'the request past its timeout was not cancelled');
        self::assertStringStartsWith('HTTP/1.1 200', $response, 'a handler that returns within the settle time is answered');
    }

    public function testACancellationFirstAskedForAfterTheConnectionClosedIsCancelledAndOneAskedForAfterTheResponseIsNot(): void
    {
        /** @var list<ServerRequestInterface> $requests */
        $requests = [];
        $server = $this->server(new ServerConfig(), static function (ServerRequestInterface $request) use (&$requests): ResponseInterface {
            $requests[] = $request;
            if ($request->getUri()->getPath() === '/slow') {
                Async::delay(0.3);
            }

            return new Response(200, [], 'ok');
        });
        $done = FiberHttpClient::exchange($server->address(), "GET /done HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")->await();
        $client = \stream_socket_client('tcp://' . $server->address()) ?: throw new \RuntimeException('no connection');
        \fwrite($client, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        Async::delay(0.1);
        $server->stop(0.0)->await(); // closes the connection while /slow is handled
        \fclose($client);
        Async::delay(0.3);

        self::assertStringEndsWith('ok', $done);
        self::assertCount(2, $requests);
        $afterResponse = RequestCancellation::of($requests[0]);
        $afterClose = RequestCancellation::of($requests[1]);
        self::assertInstanceOf(Cancellation::class, $afterResponse);
        self::assertFalse($afterResponse->isRequested(), 'a request answered in full was cancelled');
        self::assertInstanceOf(Cancellation::class, $afterClose);
        self::assertTrue($afterClose->isRequested(), 'the request whose connection closed was not cancelled');
    }
}
