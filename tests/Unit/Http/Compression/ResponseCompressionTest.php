<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Compression;

use Bobbin\Http\Compression\GzipStream;
use Bobbin\Http\Compression\ResponseCompression;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\StringStream;
use Bobbin\Http\ResponseBodyWriter;
use Bobbin\Http\ResponseFramer;
use Bobbin\Tests\Support\Http\GeneratedStream;
use Nyholm\Psr7\Response as NyholmResponse;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Log\NullLogger;

/** Which responses --compression gzips, and the bytes that go out. */
final class ResponseCompressionTest extends TestCase
{
    private const GZIP = ['Accept-Encoding' => ['gzip, br']];

    /** @param array<string, list<string>> $requestHeaders */
    private static function apply(ResponseInterface $response, array $requestHeaders = self::GZIP, string $method = 'GET'): ResponseInterface
    {
        return (new ResponseCompression(4, 1024))->apply($response, $method, $requestHeaders);
    }

    /** The complete bytes the server writes for $response. */
    private static function wire(ResponseInterface $response): string
    {
        $framed = (new ResponseFramer(''))->frame($response, 'GET', '1.1', true, '');
        $out = '';
        (new ResponseBodyWriter(new NullLogger()))->write($framed, static function (string $data) use (&$out): void {
            $out .= $data;
        });

        return $out;
    }

    public function testAJsonBodyIsGzippedWholeWithItsCompressedLengthAndVary(): void
    {
        $json = \json_encode(\array_fill(0, 200, ['name' => 'aircraft', 'seats' => 180]), \JSON_THROW_ON_ERROR);
        $response = self::apply(new Response(200, ['Content-Type' => 'application/json', 'ETag' => '"v1"'], $json));
        $wire = self::wire($response);
        [$head, $body] = \explode("\r\n\r\n", $wire, 2);

        self::assertSame($json, \gzdecode($body));
        self::assertStringContainsString("\r\nContent-Encoding: gzip\r\n", $head);
        self::assertStringContainsString("\r\nVary: Accept-Encoding\r\n", $head);
        self::assertStringContainsString("\r\nETag: W/\"v1\"\r\n", $head);
        self::assertStringEndsWith("\r\nContent-Length: " . \strlen($body), $head);
    }

    public function testAStreamedBodyIsGzippedAPieceAtATimeAndGoesOutChunked(): void
    {
        $response = self::apply(new NyholmResponse(200, ['Content-Type' => 'text/plain'], new GeneratedStream(300000, false)));
        $wire = self::wire($response);
        [$head, $chunked] = \explode("\r\n\r\n", $wire, 2);
        $body = '';
        while (($line = \strpos($chunked, "\r\n")) !== false && ($size = \hexdec(\substr($chunked, 0, $line))) > 0) {
            $body .= \substr($chunked, $line + 2, (int) $size);
            $chunked = \substr($chunked, $line + 2 + (int) $size + 2);
        }

        self::assertStringEndsWith("\r\nTransfer-Encoding: chunked", $head);
        self::assertSame(300000, \strlen((string) \gzdecode($body)));
        self::assertSame("0\r\n\r\n", $chunked);
    }

    public function testAClientThatDoesNotTakeGzipGetsTheBodyAsItIsButStillTheVary(): void
    {
        $response = self::apply(new Response(200, ['Content-Type' => 'text/html'], \str_repeat('x', 5000)), ['Accept-Encoding' => ['gzip;q=0']]);

        self::assertFalse($response->hasHeader('Content-Encoding'));
        self::assertSame('Accept-Encoding', $response->getHeaderLine('Vary'));
        self::assertSame(5000, \strlen((string) $response->getBody()));
    }

    public function testWhatMustNotBeCompressedIsLeftAlone(): void
    {
        $big = \str_repeat('x', 5000);
        $untouched = [
            'a range' => new Response(206, ['Content-Type' => 'text/plain', 'Content-Range' => 'bytes 0-4999/9000'], $big),
            'already encoded' => new Response(200, ['Content-Type' => 'text/plain', 'Content-Encoding' => 'br'], $big),
            'not modified' => new Response(304, ['Content-Type' => 'text/plain']),
            'no content' => new Response(204, ['Content-Type' => 'text/plain']),
            'an image' => new Response(200, ['Content-Type' => 'image/png'], $big),
            'no type' => new Response(200, [], $big),
            'below the threshold' => new Response(200, ['Content-Type' => 'text/plain'], \str_repeat('x', 1023)),
            'no-transform' => new Response(200, ['Content-Type' => 'text/plain', 'Cache-Control' => 'public, no-transform'], $big),
        ];
        foreach ($untouched as $case => $response) {
            self::assertSame($response, self::apply($response), $case);
        }
        $head = new Response(200, ['Content-Type' => 'text/plain'], $big);
        self::assertSame($head, self::apply($head, method: 'HEAD'), 'HEAD');
    }

    public function testAnExistingVaryIsExtendedNotRepeated(): void
    {
        $big = \str_repeat('x', 5000);

        self::assertSame(['Cookie', 'Accept-Encoding'], self::apply(new Response(200, ['Content-Type' => 'text/plain', 'Vary' => 'Cookie'], $big))->getHeader('Vary'));
        self::assertSame(['accept-encoding'], self::apply(new Response(200, ['Content-Type' => 'text/plain', 'Vary' => 'accept-encoding'], $big))->getHeader('Vary'));
    }

    public function testTheCompressedBodyOfAKnownSizeIsRewoundFirst(): void
    {
        $stream = new StringStream(\str_repeat('abc', 1000));
        $stream->read(100);

        self::assertSame(3000, \strlen((string) \gzdecode((string) self::apply(new Response(200, ['Content-Type' => 'text/plain'], $stream))->getBody())));
    }

    public function testEachPieceOfAStreamedBodyIsFlushedSoItReachesTheClientWhenProduced(): void
    {
        // Two pieces of the application's stream (64 KiB, then the rest): each read gives all of one, decodable at once.
        $stream = new GzipStream(new GeneratedStream(100000, false), 1, true);
        $inflate = \inflate_init(\ZLIB_ENCODING_GZIP);
        self::assertNotFalse($inflate);

        self::assertSame(\substr(GeneratedStream::expected(100000), 0, 65536), \inflate_add($inflate, $stream->read(1048576)));
        self::assertSame(\substr(GeneratedStream::expected(100000), 65536), \inflate_add($inflate, $stream->read(1048576)));
    }
}
