<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A response with a header the wire must not carry (a PSR-7 implementation that validates
 * nothing, or a bug in one) becomes a 500 and a log line; not one of its bytes goes out.
 */
final class InvalidResponsesTest extends TestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(['--workers=1']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    /** @return iterable<string, array{string, string}> */
    public static function invalidHeaders(): iterable
    {
        yield 'CR LF in a header name' => ['crlf-name', 'is not an RFC 9110 token'];
        yield 'CR LF in a header value' => ['crlf-value', 'contains a control character'];
        yield 'NUL in a header value' => ['nul-value', 'contains a control character'];
    }

    #[DataProvider('invalidHeaders')]
    public function testAnInvalidHeaderBecomesA500WithNothingInjectedAndTheConnectionGoesOn(string $kind, string $logged): void
    {
        $server = self::$server;
        \assert($server !== null);
        $client = new RawClient($server->address);
        $client->send("GET /bad-header?kind={$kind} HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();

        self::assertSame(500, $response['status'] ?? null);
        self::assertStringNotContainsStringIgnoringCase('evil', $response['raw'] . $response['body']);
        self::assertArrayNotHasKey('set-cookie', $response['headers']);
        self::assertArrayNotHasKey('x-a', $response['headers']);
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        $client->close();
        self::assertMatchesRegularExpression('#The response to GET /bad-header\?kind=' . $kind . ' \(request [^)]+\) was refused, a 500 went out instead: .*' . \preg_quote($logged, '#') . '#', $server->log());
    }

    public function testAValidHeaderOfTheSameUncheckedResponseGoesOut(): void
    {
        $server = self::$server;
        \assert($server !== null);
        $client = new RawClient($server->address);
        $client->send("GET /bad-header?kind=none HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();

        self::assertSame(200, $response['status'] ?? null);
        self::assertSame(['fine'], $response['headers']['x-fine'] ?? null);
        self::assertSame('body', $response['body']);
    }

    /** @return iterable<string, array{int}> */
    public static function statusesOutsideTheRange(): iterable
    {
        yield 'two digits' => [99];
        yield 'four digits' => [1000];
        yield 'zero' => [0];
        yield 'negative' => [-200];
        yield 'just above' => [600];
    }

    #[DataProvider('statusesOutsideTheRange')]
    public function testAStatusOutside100To599BecomesA500AndTheConnectionGoesOn(int $code): void
    {
        $server = self::$server;
        \assert($server !== null);
        $client = new RawClient($server->address);
        $client->send("GET /bad-status?code={$code} HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();

        self::assertSame(500, $response['status'] ?? null);
        self::assertStringStartsWith("HTTP/1.1 500 ", $response['raw']);
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('Hello, World!', $client->readResponse()['body'] ?? null);
        $client->close();
        self::assertMatchesRegularExpression('#The response to GET /bad-status\?code=' . \preg_quote((string) $code, '#') . ' \(request [^)]+\) was refused, a 500 went out instead: .*status ' . \preg_quote((string) $code, '#') . '#', $server->log());
    }
}
