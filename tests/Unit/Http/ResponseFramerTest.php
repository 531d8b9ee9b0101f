<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\BodyFraming;
use Bobbin\Http\InvalidResponseException;
use Bobbin\Http\Message\Response;
use Bobbin\Http\ResponseFramer;
use Bobbin\Tests\Support\Http\GeneratedStream;
use Bobbin\Tests\Support\Http\UncheckedResponse;
use Nyholm\Psr7\Response as NyholmResponse;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The wire form of responses: status line, headers, framing and keep-alive, byte by byte. */
final class ResponseFramerTest extends TestCase
{
    private const DATE = "Date: Wed, 25 Nov 2026 10:00:00 GMT\r\n";

    private static function framer(): ResponseFramer
    {
        return new ResponseFramer("Server: Bobbin\r\n");
    }

    public function testASmallStringBodyGoesInlineWithItsLengthTheDateAndTheServer(): void
    {
        $framed = self::framer()->frame(new Response(200, ['Content-Type' => 'text/plain'], 'Hello'), 'GET', '1.1', true, self::DATE);

        self::assertSame("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" . self::DATE . "Server: Bobbin\r\nContent-Length: 5\r\n\r\n", $framed->head);
        self::assertSame(BodyFraming::ContentLength, $framed->framing);
        self::assertSame('Hello', $framed->inlineBody);
        self::assertSame(5, $framed->length);
        self::assertTrue($framed->keepAlive);
    }

    public function testAResponseThatMayNotKeepTheConnectionSaysConnectionClose(): void
    {
        $framed = self::framer()->frame(new Response(200, [], 'x'), 'GET', '1.1', false, self::DATE);

        self::assertStringEndsWith("Content-Length: 1\r\nConnection: close\r\n\r\n", $framed->head);
        self::assertFalse($framed->keepAlive);
    }

    public function testAKeptHttp10ConnectionSaysKeepAlive(): void
    {
        $framed = self::framer()->frame(new Response(200, [], 'x'), 'GET', '1.0', true, self::DATE);

        self::assertStringEndsWith("Content-Length: 1\r\nConnection: keep-alive\r\n\r\n", $framed->head);
        self::assertTrue($framed->keepAlive);
    }

    public function testTheApplicationsFramingHeadersAreReplacedByTheServers(): void
    {
        $response = new Response(200, [
            'Content-Length' => '999', 'Transfer-Encoding' => 'gzip', 'Keep-Alive' => 'timeout=5', 'Connection' => 'keep-alive', 'X-A' => 'a',
        ], 'abc');
        $framed = self::framer()->frame($response, 'GET', '1.1', true, self::DATE);

        self::assertSame("HTTP/1.1 200 OK\r\nX-A: a\r\n" . self::DATE . "Server: Bobbin\r\nContent-Length: 3\r\n\r\n", $framed->head);
    }

    public function testConnectionCloseFromTheApplicationClosesTheConnection(): void
    {
        $framed = self::framer()->frame(new Response(200, ['Connection' => 'Close'], 'abc'), 'GET', '1.1', true, self::DATE);

        self::assertFalse($framed->keepAlive);
        self::assertStringEndsWith("Connection: close\r\n\r\n", $framed->head);
    }

    public function testTheApplicationsOwnDateAndServerAreKept(): void
    {
        $response = new Response(200, ['Date' => 'Thu, 01 Jan 2026 00:00:00 GMT', 'Server' => 'Mine'], '');
        $framed = self::framer()->frame($response, 'GET', '1.1', true, self::DATE);

        self::assertSame("HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nServer: Mine\r\nContent-Length: 0\r\n\r\n", $framed->head);
    }

    public function testResponsesWithTheSameFieldsAreFramedAlikeEveryTime(): void
    {
        // From the second on, the fields are known plain and their lines are remembered: what
        // they say (close, the application's own id and date) must hold every time.
        $framer = self::framer();
        for ($i = 0; $i < 3; $i++) {
            $response = new Response(200, ['Content-Type' => 'text/plain', 'Connection' => 'close', 'X-Request-Id' => 'mine', 'Date' => 'Thu, 01 Jan 2026 00:00:00 GMT'], 'abc');
            $framed = $framer->frame($response, 'GET', '1.1', true, self::DATE, "X-Request-Id: r-{$i}\r\n");

            self::assertSame(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Request-Id: mine\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nServer: Bobbin\r\nContent-Length: 3\r\nConnection: close\r\n\r\n",
                $framed->head,
                "response {$i}",
            );
            self::assertFalse($framed->keepAlive);
        }
    }

    public function testEachResponseIsFramedWithItsOwnFieldsWhenTheyChangeBetweenResponses(): void
    {
        $framer = self::framer();
        $fieldSets = [['X-A' => 'a'], ['X-A' => 'a'], ['X-A' => 'a', 'X-B' => 'b'], ['X-A' => 'b'], ['X-A' => 'a'], ['X-A' => 'a']];
        foreach ($fieldSets as $i => $fields) {
            $framed = $framer->frame(new Response(200, $fields, ''), 'GET', '1.1', true, self::DATE, "X-Request-Id: r-{$i}\r\n");
            $lines = '';
            foreach ($fields as $name => $value) {
                $lines .= "{$name}: {$value}\r\n";
            }

            self::assertSame("HTTP/1.1 200 OK\r\n{$lines}" . self::DATE . "Server: Bobbin\r\nX-Request-Id: r-{$i}\r\nContent-Length: 0\r\n\r\n", $framed->head, "response {$i}");
            self::assertTrue($framed->keepAlive);
        }
    }

    public function testRepeatedValuesBecomeRepeatedLines(): void
    {
        $framed = self::framer()->frame(new Response(200, ['Set-Cookie' => ['a=1', 'b=2']], ''), 'GET', '1.1', true, self::DATE);

        self::assertStringStartsWith("HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n", $framed->head);
    }

    /** @return iterable<string, array{int}> */
    public static function bodilessStatuses(): iterable
    {
        yield '103 Early Hints' => [103];
        yield '204 No Content' => [204];
    }

    #[DataProvider('bodilessStatuses')]
    public function testInformationalAndNoContentResponsesHaveNoBodyAndNoFraming(int $status): void
    {
        $framed = self::framer()->frame(new Response($status, ['Content-Length' => '3'], 'abc'), 'GET', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::None, $framed->framing);
        self::assertStringNotContainsStringIgnoringCase('content-length', $framed->head);
        self::assertStringNotContainsStringIgnoringCase('transfer-encoding', $framed->head);
        self::assertNull($framed->inlineBody);
    }

    public function testAHeadResponseRepeatsTheLengthOfTheBodyItDoesNotSend(): void
    {
        $framed = self::framer()->frame(new Response(200, [], 'Hello'), 'HEAD', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::None, $framed->framing);
        self::assertStringEndsWith("Content-Length: 5\r\n\r\n", $framed->head);
        self::assertNull($framed->inlineBody);
    }

    public function testANotModifiedResponseRepeatsOnlyADeclaredLength(): void
    {
        $declared = self::framer()->frame(new Response(304, ['Content-Length' => '42']), 'GET', '1.1', true, self::DATE);
        $undeclared = self::framer()->frame(new Response(304, [], 'ignored'), 'GET', '1.1', true, self::DATE);

        self::assertStringEndsWith("Content-Length: 42\r\n\r\n", $declared->head);
        self::assertStringNotContainsString('Content-Length', $undeclared->head);
        self::assertSame(BodyFraming::None, $undeclared->framing);
    }

    public function testABodyOfUnknownSizeIsChunkedInHttp11(): void
    {
        $framed = self::framer()->frame(new NyholmResponse(200, [], new GeneratedStream(10, false)), 'GET', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::Chunked, $framed->framing);
        self::assertStringEndsWith("Transfer-Encoding: chunked\r\n\r\n", $framed->head);
        self::assertTrue($framed->keepAlive);
    }

    public function testABodyOfUnknownSizeEndsWithTheConnectionInHttp10(): void
    {
        $framed = self::framer()->frame(new NyholmResponse(200, [], new GeneratedStream(10, false)), 'GET', '1.0', true, self::DATE);

        self::assertSame(BodyFraming::UntilClose, $framed->framing);
        self::assertFalse($framed->keepAlive);
        self::assertStringEndsWith("Connection: close\r\n\r\n", $framed->head);
        self::assertStringNotContainsString('Content-Length', $framed->head);
    }

    public function testAStringBodyLargerThanTheInlineLimitIsSizedButNotInlined(): void
    {
        $body = \str_repeat('x', ResponseFramer::INLINE_BODY_BYTES + 1);
        $framed = self::framer()->frame(new Response(200, [], $body), 'GET', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::ContentLength, $framed->framing);
        self::assertSame(\strlen($body), $framed->length);
        self::assertNull($framed->inlineBody);
        self::assertNotNull($framed->body);
    }

    public function testAnotherImplementationsSmallSeekableStreamIsSizedAndReadIntoTheHeadsWrite(): void
    {
        $framed = self::framer()->frame(new NyholmResponse(200, [], 'Hello'), 'GET', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::ContentLength, $framed->framing);
        self::assertSame(5, $framed->length);
        self::assertSame('Hello', $framed->inlineBody);
        self::assertStringEndsWith("Content-Length: 5\r\n\r\n", $framed->head);
        self::assertSame($framed->head . 'Hello', $framed->bytes);
    }

    public function testAStreamThatCannotSeekIsSizedButLeftToBeStreamed(): void
    {
        $framed = self::framer()->frame(new NyholmResponse(200, [], new GeneratedStream(10, true)), 'GET', '1.1', true, self::DATE);

        self::assertSame(BodyFraming::ContentLength, $framed->framing);
        self::assertSame(10, $framed->length);
        self::assertNull($framed->inlineBody);
        self::assertNull($framed->bytes);
    }

    public function testAStreamWhoseContentsDoNotMatchItsSizeIsLeftToBeStreamed(): void
    {
        $lying = new GeneratedStream(12, true, claimedSize: 5, claimsSeekable: true);
        $framed = self::framer()->frame(new NyholmResponse(200, [], $lying), 'GET', '1.1', true, self::DATE);

        self::assertSame("Content-Length: 5\r\n\r\n", \substr($framed->head, -21));
        self::assertNull($framed->inlineBody, 'the body writer decides what a short or long stream means');
        self::assertNull($framed->bytes);
    }

    public function testAnEmptyReasonIsTheStandardPhrase(): void
    {
        $framed = self::framer()->frame(new UncheckedResponse(418, []), 'GET', '1.1', true, self::DATE);

        self::assertStringStartsWith("HTTP/1.1 418 I'm a teapot\r\n", $framed->head);
    }

    /** @return iterable<string, array{int}> */
    public static function statusesOutsideTheRange(): iterable
    {
        yield 'two digits' => [99];
        yield 'four digits' => [1000];
        yield 'zero' => [0];
        yield 'negative' => [-1];
        yield 'just above' => [600];
    }

    #[DataProvider('statusesOutsideTheRange')]
    public function testAStatusOutside100To599IsRefusedNamingIt(int $status): void
    {
        try {
            self::framer()->frame(new UncheckedResponse($status, [], 'x'), 'GET', '1.1', true, self::DATE);
            self::fail('HTTP/1.1 ' . $status . ' was framed');
        } catch (InvalidResponseException $e) {
            self::assertStringContainsString('status ' . $status . ' ', $e->getMessage());
        }
    }

    public function testTheEdgesOfTheRangeGoOut(): void
    {
        self::assertStringStartsWith("HTTP/1.1 100 Continue\r\n", self::framer()->frame(new UncheckedResponse(100, []), 'GET', '1.1', true, self::DATE)->head);
        self::assertStringStartsWith("HTTP/1.1 599 ", self::framer()->frame(new UncheckedResponse(599, [], 'x'), 'GET', '1.1', true, self::DATE)->head);
    }

    /** @return iterable<string, array{array<string, list<string>>, string}> */
    public static function invalidFields(): iterable
    {
        yield 'CR LF in a name' => [["X-A\r\nSet-Cookie: evil=1\r\nX-B" => ['b']], 'not an RFC 9110 token'];
        yield 'a space in a name' => [['X A' => ['b']], 'not an RFC 9110 token'];
        yield 'an empty name' => [['' => ['b']], 'not an RFC 9110 token'];
        yield 'CR LF in a value' => [['X-A' => ["a\r\nSet-Cookie: evil=1"]], 'control character'];
        yield 'NUL in a value' => [['X-A' => ["a\0b"]], 'control character'];
        yield 'DEL in a value' => [['X-A' => ["a\x7fb"]], 'control character'];
        yield 'a lone LF in a value' => [['X-A' => ["a\nb"]], 'control character'];
    }

    /** @param array<string, list<string>> $headers */
    #[DataProvider('invalidFields')]
    public function testAnInvalidHeaderOfAnUncheckedResponseIsRefusedNamingIt(array $headers, string $why): void
    {
        try {
            self::framer()->frame(new UncheckedResponse(200, $headers, 'x'), 'GET', '1.1', true, self::DATE);
            self::fail('An invalid header was framed');
        } catch (InvalidResponseException $e) {
            self::assertStringContainsString($why, $e->getMessage());
            self::assertStringNotContainsString("\r", $e->getMessage());
            self::assertStringNotContainsString("\n", $e->getMessage());
        }
    }

    /** @param array<string, list<string>> $headers */
    #[DataProvider('invalidFields')]
    public function testAFramerThatFramedValidFieldsBeforeStillRefusesAnInvalidOne(array $headers, string $why): void
    {
        $framer = self::framer();
        $framer->frame(new UncheckedResponse(200, ['X-A' => ['a'], 'X-B' => ['b']], 'x'), 'GET', '1.1', true, self::DATE);

        for ($attempt = 0; $attempt < 2; $attempt++) {
            try {
                $framer->frame(new UncheckedResponse(200, $headers, 'x'), 'GET', '1.1', true, self::DATE);
                self::fail('An invalid header was framed');
            } catch (InvalidResponseException $e) {
                self::assertStringContainsString($why, $e->getMessage());
            }
        }
    }

    public function testAFieldOrReasonCheckedOnceIsFramedTheSameEveryTime(): void
    {
        $framer = self::framer();
        $response = new UncheckedResponse(200, ['X-A' => ['a b'], 'X-B' => ['1', '2']], 'x');
        $first = $framer->frame($response, 'GET', '1.1', true, self::DATE);
        $second = $framer->frame($response, 'GET', '1.1', true, self::DATE);

        self::assertSame($first->head, $second->head);
        self::assertStringContainsString("X-A: a b\r\nX-B: 1\r\nX-B: 2\r\n", $second->head);
    }

    public function testATabAndObsTextInAValueAreAllowed(): void
    {
        $framed = self::framer()->frame(new UncheckedResponse(200, ['X-A' => ["a\tb\xe9"]], ''), 'GET', '1.1', true, self::DATE);

        self::assertStringContainsString("X-A: a\tb\xe9\r\n", $framed->head);
    }

    public function testTheServersErrorResponseIsPlainTextThatClosesUnlessKeptAlive(): void
    {
        $closing = self::framer()->errorResponse(408);
        $kept = self::framer()->errorResponse(500, true);

        self::assertMatchesRegularExpression(
            "#^HTTP/1\\.1 408 Request Timeout\r\nDate: [^\r]+ GMT\r\nServer: Bobbin\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 20\r\nConnection: close\r\n\r\n408 Request Timeout\n$#D",
            $closing,
        );
        self::assertStringNotContainsString('Connection:', $kept);
        self::assertStringEndsWith("\r\n\r\n500 Internal Server Error\n", $kept);
    }
}
