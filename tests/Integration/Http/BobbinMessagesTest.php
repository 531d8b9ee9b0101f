<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Http\ClosureHandler;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use Bobbin\Http\Server;
use Bobbin\Http\ServerConfig;
use Bobbin\Log\StderrLogger;
use Bobbin\Tests\Support\Http\FiberHttpClient;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Log\LogLevel;

/**
 * Bobbin's own message classes through a real server: the application gets a Bobbin
 * ServerRequest, and StringStream bodies (written from the string, not through the stream API)
 * go out exactly as any other body would.
 */
final class BobbinMessagesTest extends TestCase
{
    private Server $server;

    protected function setUp(): void
    {
        $log = \fopen('php://memory', 'w+') ?: throw new \RuntimeException('no memory stream');
        $application = static function (ServerRequestInterface $request): ResponseInterface {
            switch ($request->getUri()->getPath()) {
                case '/request':
                    return new Response(200, ['Content-Type' => 'application/json'], \json_encode([
                        'class' => $request::class,
                        'target' => $request->getRequestTarget(),
                        'query' => $request->getQueryParams(),
                        'cookies' => $request->getCookieParams(),
                        'body' => (string) $request->getBody(),
                    ], \JSON_THROW_ON_ERROR));
                case '/big':
                    return new Response(200, [], \str_repeat('0123456789', 20_000));
                case '/read-already':
                    // The application consumed its own body stream: the server still sends all of it.
                    $body = new StringStream('all of it');
                    $body->getContents();

                    return (new Response(200))->withBody($body);
                default:
                    return new Response(200, ['Content-Type' => 'text/plain'], 'small');
            }
        };
        $this->server = new Server(new ServerConfig(), new ClosureHandler($application), new StderrLogger(LogLevel::DEBUG, $log), Server::listen('127.0.0.1:0'));
        $this->server->start();
    }

    protected function tearDown(): void
    {
        $this->server->stop(1.0)->await();
    }

    private function exchange(string $bytes): string
    {
        $address = $this->server->address();

        return FiberHttpClient::exchange($address, $bytes)->await();
    }

    /** @return array{string, string} head and body */
    private function get(string $target, string $method = 'GET'): array
    {
        $response = $this->exchange("$method $target HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        $parts = \explode("\r\n\r\n", $response, 2);

        return [$parts[0], $parts[1] ?? ''];
    }

    public function testTheApplicationGetsABobbinRequestWithItsPartsParsedOnDemand(): void
    {
        $response = $this->exchange("POST /request?a=1&b[]=2 HTTP/1.1\r\nHost: x\r\nCookie: sid=abc\r\nContent-Length: 4\r\nConnection: close\r\n\r\nping");
        [, $body] = \explode("\r\n\r\n", $response, 2);

        self::assertSame([
            'class' => ServerRequest::class,
            'target' => '/request?a=1&b[]=2',
            'query' => ['a' => '1', 'b' => ['2']],
            'cookies' => ['sid' => 'abc'],
            'body' => 'ping',
        ], \json_decode($body, true));
    }

    public function testASmallStringBodyGoesOutWithItsLength(): void
    {
        [$head, $body] = $this->get('/small');

        self::assertStringStartsWith("HTTP/1.1 200 OK\r\n", $head);
        self::assertStringContainsString("\r\nContent-Length: 5", $head);
        self::assertSame('small', $body);
    }

    public function testABodyAboveTheInlineLimitArrivesWhole(): void
    {
        [$head, $body] = $this->get('/big');

        self::assertStringContainsString("\r\nContent-Length: 200000", $head);
        self::assertSame(\str_repeat('0123456789', 20_000), $body);
    }

    public function testTheWholeBodyIsSentWhateverThePositionOfItsStream(): void
    {
        [$head, $body] = $this->get('/read-already');

        self::assertStringContainsString("\r\nContent-Length: 9", $head);
        self::assertSame('all of it', $body);
    }

    public function testHeadAnnouncesTheLengthAndSendsNoBody(): void
    {
        [$head, $body] = $this->get('/small', 'HEAD');

        self::assertStringContainsString("\r\nContent-Length: 5", $head);
        self::assertSame('', $body);
    }

    public function testAHostNoUriParserAcceptsIsABadRequest(): void
    {
        $response = $this->exchange("GET /small HTTP/1.1\r\nHost: example.test:99999\r\nConnection: close\r\n\r\n");
        self::assertStringStartsWith('HTTP/1.1 400 Bad Request', $response);
    }
}
