<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * echo, header(), setcookie(), http_response_code() and headers_sent() inside a request behave
 * as under PHP-FPM with an emitter, and leave nothing behind for the next request of the worker.
 */
final class ClassicPhpFunctionsTest extends TestCase
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

    /** @return array{status: int, reason: string, headers: array<string, list<string>>, body: string, raw: string} */
    private static function get(string $target): array
    {
        $client = new RawClient((string) self::$server?->address);
        $client->send("GET $target HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        $client->close();
        self::assertNotNull($response);

        return $response;
    }

    private static function assertTheNextRequestIsUntouched(): void
    {
        $next = self::get('/');
        self::assertSame('Hello, World!', $next['body']);
        self::assertArrayNotHasKey('set-cookie', $next['headers']);
        self::assertArrayNotHasKey('x-classic', $next['headers']);
        self::assertStringNotContainsString('stray', (string) self::$server?->log());
    }

    public function testEchoedOutputGoesBeforeTheBodyAndNotToTheServersStdout(): void
    {
        $response = self::get('/classic?what=echo');

        self::assertSame('stray output body', $response['body']);
        self::assertSame(['17'], $response['headers']['content-length']);
        self::assertTheNextRequestIsUntouched();
    }

    public function testHeaderAndSetcookieJoinTheResponseWhoseOwnHeadersWin(): void
    {
        $response = self::get('/classic?what=header');

        self::assertSame(['yes'], $response['headers']['x-classic'] ?? null);
        self::assertSame(['from the response'], $response['headers']['x-own'] ?? null);
        self::assertSame(['other=1', 'sid=abc; path=/; HttpOnly'], $response['headers']['set-cookie'] ?? null);
        self::assertTheNextRequestIsUntouched();
    }

    public function testAStrayFlushOutsideAStreamedBodyChangesNothingEvenOnceAStreamedBodyHookedFlush(): void
    {
        self::assertSame('streamed', self::get('/classic?what=streamed-flush')['body']);

        $response = self::get('/classic?what=flush');

        self::assertSame('stray body', $response['body']);
        self::assertSame(['10'], $response['headers']['content-length'] ?? null);
        self::assertSame(['works'], $response['headers']['x-after-flush'] ?? null);
        self::assertTheNextRequestIsUntouched();
    }

    public function testAStreamedBodyFlushedFasterThanItsClientReadsHoldsNoWorkerAndArrivesWholeInOrder(): void
    {
        $idle = new RawClient((string) self::$server?->address);
        $idle->send("GET /classic?what=streamed-big HTTP/1.1\r\nHost: a\r\n\r\n");
        \usleep(200_000); // its callback ran: its flushes found the client's window full

        $start = \microtime(true);
        self::assertSame('Hello, World!', self::get('/')['body']);
        self::assertLessThan(2.0, \microtime(true) - $start, 'a client that does not read holds no worker');

        $response = self::get('/classic?what=streamed-big');
        $expected = '';
        for ($i = 0; $i < 20; $i++) {
            $expected .= \str_repeat(\chr(65 + $i), 1 << 20);
        }
        self::assertSame(\strlen($expected), \strlen($response['body']));
        self::assertTrue($expected === $response['body'], 'the bytes arrive in the order they were flushed');
        $idle->close();
    }

    public function testTheResponsesStatusWinsOverHttpResponseCodeAsWithAnEmitter(): void
    {
        self::assertSame(201, self::get('/classic?what=code')['status']);
        self::assertSame(200, self::get('/')['status']);
    }

    public function testHeadersAreNotSentByAnEchoSoHeaderStillWorks(): void
    {
        $response = self::get('/classic?what=sent');

        self::assertSame('xnot sent', $response['body']);
        self::assertSame(['works'], $response['headers']['x-after-echo'] ?? null);
        self::assertTheNextRequestIsUntouched();
    }

    public function testARequestThatSetsHeadersAndEchoesThenWaitsKeepsThemFromTheRequestsThatRunMeanwhile(): void
    {
        $clients = [];
        for ($i = 0; $i < 20; $i++) {
            $clients[$i] = new RawClient((string) self::$server?->address);
            $clients[$i]->send($i % 2 === 0 ? "GET /classic?what=header-then-wait HTTP/1.1\r\nHost: a\r\n\r\n" : "GET /slow?ms=30 HTTP/1.1\r\nHost: a\r\n\r\n");
        }
        foreach ($clients as $i => $client) {
            $response = $client->readResponse();
            self::assertNotNull($response);
            if ($i % 2 === 1) {
                self::assertSame('slow done', $response['body'], "request $i");
                self::assertArrayNotHasKey('x-classic', $response['headers'], "request $i took another's header");
            } else {
                self::assertSame('mine waited', $response['body'], "request $i");
                self::assertSame(['yes'], $response['headers']['x-classic'] ?? null, "request $i lost its header");
            }
        }
    }
}
