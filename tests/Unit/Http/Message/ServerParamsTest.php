<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\ServerParams;
use PHPUnit\Framework\TestCase;

/** $_SERVER as PHP-FPM behind nginx fills it, from the connection, the script and the request. */
final class ServerParamsTest extends TestCase
{
    private const BASE = [
        'REMOTE_ADDR' => '127.0.0.1', 'REMOTE_PORT' => '40418', 'SERVER_ADDR' => '127.0.0.1', 'SERVER_PORT' => '8080',
        'REQUEST_METHOD' => 'POST', 'REQUEST_URI' => '/some/path%20x?q=1&r[]=2', 'SERVER_PROTOCOL' => 'HTTP/1.1',
    ];

    public function testHeadersBecomeHttpKeysAndTheRequestsPartsTheirCgiKeys(): void
    {
        $params = ServerParams::complete(self::BASE, [
            'Host' => ['example.test:8080'], 'X-Custom-Thing' => ['v1', 'v2'], 'Cookie' => ['a=1', 'b=2'],
            'Content-Type' => ['text/plain'], 'Content-Length' => ['5'],
        ], '/some/path%20x?q=1&r[]=2', 'http', 5);

        self::assertSame('example.test:8080', $params['HTTP_HOST']);
        self::assertSame('v1, v2', $params['HTTP_X_CUSTOM_THING']);
        self::assertSame('a=1; b=2', $params['HTTP_COOKIE']);
        self::assertSame('text/plain', $params['CONTENT_TYPE']);
        self::assertSame('text/plain', $params['HTTP_CONTENT_TYPE']);
        self::assertSame('5', $params['CONTENT_LENGTH']);
        self::assertSame('q=1&r[]=2', $params['QUERY_STRING']);
        self::assertSame('/some/path x', $params['DOCUMENT_URI']);
        self::assertSame('http', $params['REQUEST_SCHEME']);
        self::assertArrayNotHasKey('HTTPS', $params);
        self::assertSame('example.test', $params['SERVER_NAME']);
        self::assertSame('CGI/1.1', $params['GATEWAY_INTERFACE']);
        self::assertSame('8080', $params['SERVER_PORT']);
    }

    public function testARequestWithoutBodyOrQueryHasEmptyStringsAsFpmGivesThem(): void
    {
        $params = ServerParams::complete(self::BASE, ['Host' => ['a']], '/x', 'http', 0);

        self::assertSame(['', '', ''], [$params['QUERY_STRING'], $params['CONTENT_TYPE'], $params['CONTENT_LENGTH']]);
    }

    public function testAChunkedBodyGetsTheLengthThatWasRead(): void
    {
        self::assertSame('42', ServerParams::complete(self::BASE, ['Transfer-Encoding' => ['chunked']], '/x', 'http', 42)['CONTENT_LENGTH']);
    }

    public function testHttpsFromATrustedProxyIsOn(): void
    {
        $params = ServerParams::complete(self::BASE, [], '/', 'https', 0);

        self::assertSame(['https', 'on'], [$params['REQUEST_SCHEME'], $params['HTTPS']]);
        self::assertSame('127.0.0.1', $params['SERVER_NAME'], 'no Host: the server address');
    }

    public function testAProxyHeaderNeverBecomesHttpProxy(): void
    {
        self::assertArrayNotHasKey('HTTP_PROXY', ServerParams::complete(self::BASE, ['Proxy' => ['http://evil:8080']], '/', 'http', 0));
    }

    public function testTheDocumentUriIsThePathDecodedWithDotSegmentsAndDoubleSlashesResolved(): void
    {
        $uri = static fn (string $target): string => ServerParams::complete(self::BASE, [], $target, 'http', 0)['DOCUMENT_URI'];

        self::assertSame('/a/c', $uri('/a//b/../c'));
        self::assertSame('/a/', $uri('/a/./'));
        self::assertSame('/', $uri('/../..'));
        self::assertSame('/ü', $uri('/%C3%BC?x=1'));
    }

    public function testAnIpv6HostKeepsItsBracketsInServerName(): void
    {
        self::assertSame('[::1]', ServerParams::complete(self::BASE, ['Host' => ['[::1]:8080']], '/', 'http', 0)['SERVER_NAME']);
    }
}
