<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\GeneratedStream;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** HTTP/1.1 semantics over raw sockets against `bin/bobbin serve`, each request sent whole and byte by byte. */
final class ProtocolTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--max-body-bytes=100000', '--max-header-bytes=8192', '--max-request-line-bytes=4096']);
    }

    public static function tearDownAfterClass(): void
    {
        $exitCode = self::$server?->stop();
        self::$server = null;
        self::assertSame(0, $exitCode);
    }

    private static function client(): RawClient
    {
        return new RawClient((string) self::$server?->address);
    }

    private static function send(RawClient $client, string $bytes, bool $byteByByte): void
    {
        $byteByByte ? $client->sendByteByByte($bytes) : $client->send($bytes);
    }

    /** @return iterable<string, array{bool}> */
    public static function modes(): iterable
    {
        yield 'whole' => [false];
        yield 'byte by byte' => [true];
    }

    /** @return iterable<string, array{string, int, bool}> */
    public static function smugglingVectors(): iterable
    {
        $cases = [
            'CL.TE' => ["POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG", 400],
            'TE.CL' => ["POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n", 400],
            'TE with an obfuscated coding' => ["POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 501],
            'TE with whitespace before the colon' => ["POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400],
            'two Content-Lengths' => ["POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400],
            'chunk-size overflow' => ["POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000001\r\na\r\n0\r\n\r\n", 400],
            'bare LF in the head' => ["GET / HTTP/1.1\r\nHost: a\n\nGET /admin HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'bare LF after a chunk' => ["POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\n0\r\n\r\n", 400],
            'obs-fold' => ["GET / HTTP/1.1\r\nHost: a\r\nX-Folded: a\r\n b\r\n\r\n", 400],
            'missing Host' => ["GET / HTTP/1.1\r\n\r\n", 400],
            'repeated Host' => ["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
            'control character in a value' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: \x07\r\n\r\n", 400],
            'unknown version' => ["GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505],
            'request line too long' => ['GET /' . \str_repeat('x', 5000) . " HTTP/1.1\r\nHost: a\r\n\r\n", 414],
            'header section too large' => ["GET / HTTP/1.1\r\nHost: a\r\nX-Big: " . \str_repeat('x', 9000) . "\r\n\r\n", 431],
            'body too large' => ["POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 100001\r\n\r\n", 413],
        ];
        foreach ($cases as $name => [$bytes, $status]) {
            yield $name . ', whole' => [$bytes, $status, false];
            yield $name . ', byte by byte' => [$bytes, $status, true];
        }
    }

    #[DataProvider('smugglingVectors')]
    public function testAmbiguousRequestsGetTheirErrorAndAClosedConnection(string $bytes, int $status, bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, $bytes, $byteByByte);
        $response = $client->readResponse();

        self::assertNotNull($response);
        self::assertSame($status, $response['status']);
        self::assertSame(['close'], $response['headers']['connection'] ?? null);
        self::assertStringNotContainsString('SMUGGLED', $response['body']);
        self::assertTrue($client->isClosedByServer(), 'The connection stayed open after a framing error');
        $client->close();
    }

    #[DataProvider('modes')]
    public function testKeepAliveServesManyRequestsOnOneConnection(bool $byteByByte): void
    {
        $client = self::client();
        for ($i = 0; $i < 3; $i++) {
            self::send($client, "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n", $byteByByte);
            $response = $client->readResponse();
            self::assertSame(200, $response['status'] ?? null);
            self::assertSame('OK', $response['reason']);
            self::assertSame('Hello, World!', $response['body']);
            self::assertSame(['13'], $response['headers']['content-length']);
            self::assertSame(['Bobbin'], $response['headers']['server']);
            self::assertMatchesRegularExpression('/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/', $response['headers']['date'][0]);
            self::assertArrayNotHasKey('connection', $response['headers']);
        }
        $client->close();
    }

    public function testPipelinedRequestsAreAnsweredInOrderEvenWhenTheFirstIsSlow(): void
    {
        $client = self::client();
        $client->send(
            "GET /slow?ms=300 HTTP/1.1\r\nHost: a\r\n\r\n"
            . "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\nsecond"
            . "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        );

        self::assertSame('slow done', $client->readResponse()['body'] ?? null);
        self::assertSame('second', $client->readResponse()['body'] ?? null);
        $last = $client->readResponse();
        self::assertSame('Hello, World!', $last['body'] ?? null);
        self::assertSame(['close'], $last['headers']['connection']);
        self::assertTrue($client->isClosedByServer());
    }

    #[DataProvider('modes')]
    public function testConnectionCloseIsHonoured(bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", $byteByByte);

        self::assertSame(['close'], $client->readResponse()['headers']['connection'] ?? null);
        self::assertTrue($client->isClosedByServer());
    }

    #[DataProvider('modes')]
    public function testHttp10ClosesByDefaultAndKeepsAliveWhenAsked(bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, "GET / HTTP/1.0\r\n\r\n", $byteByByte);
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        self::assertTrue($client->isClosedByServer());

        $client = self::client();
        self::send($client, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", $byteByByte);
        $response = $client->readResponse();
        self::assertSame(['keep-alive'], $response['headers']['connection'] ?? null);
        self::send($client, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", $byteByByte);
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        $client->close();
    }

    #[DataProvider('modes')]
    public function testHeadGetsTheHeadersOfGetWithoutABody(bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, "HEAD / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", $byteByByte);

        $head = $client->readResponse(expectBody: false);
        self::assertSame(200, $head['status'] ?? null);
        self::assertSame(['13'], $head['headers']['content-length']);
        // The next response starts right after the head: no body bytes were sent.
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        $client->close();
    }

    #[DataProvider('modes')]
    public function testContentLengthAndChunkedBodiesReachTheApplication(bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: text/x-test\r\nContent-Length: 11\r\n\r\nhello world", $byteByByte);
        $response = $client->readResponse();
        self::assertSame('hello world', $response['body'] ?? null);
        self::assertSame(['text/x-test'], $response['headers']['content-type']);

        self::send($client, "PUT /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nabcd\r\n3\r\nefg\r\n0\r\nX-Trailer: t\r\n\r\n", $byteByByte);
        self::assertSame('abcdefg', $client->readResponse()['body'] ?? null);
        $client->close();
    }

    public function testExpect100ContinueIsAnsweredBeforeTheBodyIsSent(): void
    {
        $client = self::client();
        $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
        $interim = $client->readResponse(expectBody: false);
        self::assertSame(100, $interim['status'] ?? null);

        $client->send('data');
        self::assertSame('data', $client->readResponse()['body'] ?? null);
        $client->close();
    }

    public function testExpect100ContinueWithATooLargeBodyGets413Instead(): void
    {
        $client = self::client();
        $client->send("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 200000\r\n\r\n");

        self::assertSame(413, $client->readResponse()['status'] ?? null);
        $client->close();
    }

    #[DataProvider('modes')]
    public function testTheApplicationSeesTheRequestAsSent(bool $byteByByte): void
    {
        $client = self::client();
        self::send($client, "GET /info?a=1&b[]=2&b[]=3 HTTP/1.1\r\nHost: example.test:8000\r\nCookie: sid=abc; theme=dark\r\nX-Multi: one\r\nX-Multi: two\r\n\r\n", $byteByByte);
        $info = \json_decode($client->readResponse()['body'] ?? 'null', true);

        self::assertSame('GET', $info['method']);
        self::assertSame('/info?a=1&b[]=2&b[]=3', $info['target']);
        self::assertSame('http://example.test:8000/info?a=1&b%5B%5D=2&b%5B%5D=3', $info['uri']);
        self::assertSame('1.1', $info['protocol']);
        self::assertSame(['one', 'two'], $info['headers']['X-Multi']);
        self::assertSame(['a' => '1', 'b' => ['2', '3']], $info['query']);
        self::assertSame(['sid' => 'abc', 'theme' => 'dark'], $info['cookies']);
        self::assertSame('127.0.0.1', $info['server']['REMOTE_ADDR']);
        self::assertSame(\stream_socket_get_name($client->socket(), false), '127.0.0.1:' . $info['server']['REMOTE_PORT']);
        self::assertSame('GET', $info['server']['REQUEST_METHOD']);
        $client->close();
    }

    public function testAbsoluteFormAndOptionsAsteriskReachTheApplication(): void
    {
        $client = self::client();
        $client->send("GET http://other.test/info?q=1 HTTP/1.1\r\nHost: other.test\r\n\r\n");
        $info = \json_decode($client->readResponse()['body'] ?? 'null', true);
        self::assertSame('http://other.test/info?q=1', $info['uri']);
        self::assertSame(['q' => '1'], $info['query']);

        $client->send("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $client->readResponse()['status'] ?? null);
        $client->close();
    }

    public function testAResponseOfUnknownSizeIsChunkedInHttp11AndCloseDelimitedInHttp10(): void
    {
        $client = self::client();
        $client->send("GET /stream?bytes=200000 HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        self::assertSame(['chunked'], $response['headers']['transfer-encoding'] ?? null);
        self::assertSame(GeneratedStream::expected(200000), $response['body']);
        $client->close();

        $client = self::client();
        $client->send("GET /stream?bytes=5000 HTTP/1.0\r\n\r\n");
        $response = $client->readResponse();
        self::assertArrayNotHasKey('content-length', $response['headers'] ?? []);
        self::assertSame(GeneratedStream::expected(5000), $response['body'] ?? null);
        $client->close();
    }

    public function testResponsesWithoutBodiesCarryNoFraming(): void
    {
        $client = self::client();
        $client->send("GET /status?code=204 HTTP/1.1\r\nHost: a\r\n\r\nGET /status?code=304 HTTP/1.1\r\nHost: a\r\n\r\nGET /status?code=418 HTTP/1.1\r\nHost: a\r\n\r\n");

        $noContent = $client->readResponse();
        self::assertSame(204, $noContent['status'] ?? null);
        self::assertArrayNotHasKey('content-length', $noContent['headers']);
        self::assertArrayNotHasKey('transfer-encoding', $noContent['headers']);
        self::assertSame(304, $client->readResponse()['status'] ?? null);
        $teapot = $client->readResponse();
        self::assertSame("I'm a teapot", $teapot['reason'] ?? null);
        self::assertSame(['0'], $teapot['headers']['content-length']);
        $client->close();
    }
}
