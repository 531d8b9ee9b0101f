<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http;

use Bobbin\Http\ProtocolException;
use Bobbin\Http\RequestHead;
use Bobbin\Http\RequestParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Every parsing rule, each fed as one piece and one byte at a time. */
final class RequestParserTest extends TestCase
{
    /**
     * Feeds $bytes and collects every request parsed, stopping at the first error.
     *
     * @return array{list<array{RequestHead, string}>, ?ProtocolException}
     */
    private static function parse(string $bytes, bool $byteByByte, ?RequestParser $parser = null): array
    {
        $parser ??= new RequestParser(maxRequestLineBytes: 100, maxHeaderBytes: 300, maxHeaderCount: 5, maxBodyBytes: 1000);
        $pieces = $byteByByte ? \str_split($bytes) : [$bytes];
        $requests = [];
        $head = null;
        try {
            foreach ($pieces as $piece) {
                $parser->buffer .= $piece;
                while (true) {
                    if ($head === null) {
                        $head = $parser->nextHead();
                        if ($head === null) {
                            break;
                        }
                    }
                    $body = $head->hasBody() ? $parser->readBody($head) : '';
                    if ($body === null) {
                        break;
                    }
                    $requests[] = [$head, $body];
                    $head = null;
                }
            }
        } catch (ProtocolException $error) {
            return [$requests, $error];
        }

        return [$requests, null];
    }

    /** @return iterable<string, array{bool}> */
    public static function modes(): iterable
    {
        yield 'whole' => [false];
        yield 'byte by byte' => [true];
    }

    /** @return iterable<string, array{string, int, bool}> */
    public static function rejectedRequests(): iterable
    {
        $cases = [
            'Content-Length with Transfer-Encoding (CL.TE)' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
            'Transfer-Encoding with Content-Length (TE.CL)' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n", 400],
            'two different Content-Lengths' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400],
            'a Content-Length list with different values' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 4\r\n\r\nabcd", 400],
            'a non-digit Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3a\r\n\r\nabc", 400],
            'a signed Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", 400],
            'a hex Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc", 400],
            'an empty Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", 400],
            'an overflowing Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413],
            'a body over the limit' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n", 413],
            'gzip transfer coding' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501],
            'chunked not last' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400],
            'chunked twice' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400],
            'chunked with a trailing comma' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked,\r\n\r\n", 400],
            'Transfer-Encoding in HTTP/1.0' => ["POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
            'a non-hex chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nz\r\nabc\r\n0\r\n\r\n", 400],
            'a 0x chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n", 400],
            'a negative chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-3\r\nabc\r\n0\r\n\r\n", 400],
            'an overflowing chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nabc\r\n0\r\n\r\n", 400],
            'whitespace after a chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n", 400],
            'a chunk size with a leading space' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n 3\r\nabc\r\n0\r\n\r\n", 400],
            'a missing last chunk line' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n\r\n", 400],
            'chunk data longer than its size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", 400],
            'chunks over the body limit' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n", 413],
            'a bare LF after a chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", 400],
            'a control character in a chunk extension' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;a=\x01\r\nabc\r\n0\r\n\r\n", 400],
            'obs-fold' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", 400],
            'obs-fold with a tab' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\tc\r\n\r\n", 400],
            'whitespace before the colon' => ["GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 3\r\n\r\nabc", 400],
            'a tab before the colon' => ["GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", 400],
            'an empty header name' => ["GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", 400],
            'a line without a colon' => ["GET / HTTP/1.1\r\nHost: a\r\nnonsense\r\n\r\n", 400],
            'a control character in a name' => ["GET / HTTP/1.1\r\nHost: a\r\nX\x01A: b\r\n\r\n", 400],
            'a NUL in a value' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: b\x00c\r\n\r\n", 400],
            'a bare CR in a value' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", 400],
            'a missing Host in HTTP/1.1' => ["GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400],
            'two Hosts' => ["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
            'two Hosts in HTTP/1.0' => ["GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400],
            'a malformed Host' => ["GET / HTTP/1.1\r\nHost: a b/c\r\n\r\n", 400],
            'bare LF line ends' => ["GET / HTTP/1.1\nHost: a\n\n", 400],
            'a bare LF ending one header' => ["GET / HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n", 400],
            'a bare LF ending the head (smuggling)' => ["GET / HTTP/1.1\r\nHost: a\r\n\nGET /admin HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'a leading bare LF' => ["\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'an unknown version' => ["GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505],
            'HTTP/1.2' => ["GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505],
            'HTTP/10.0' => ["GET / HTTP/10.0\r\nHost: a\r\n\r\n", 505],
            'a lowercase protocol name' => ["GET / http/1.1\r\nHost: a\r\n\r\n", 400],
            'two spaces in the request line' => ["GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'a space in the target' => ["GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'a control character in the target' => ["GET /a\x7f HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'an asterisk target for GET' => ["GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'a relative target' => ["GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400],
            'CONNECT' => ["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 501],
            'a request line over the limit' => ['GET /' . \str_repeat('a', 120) . " HTTP/1.1\r\nHost: a\r\n\r\n", 414],
            'a header section over the limit' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: " . \str_repeat('a', 300) . "\r\n\r\n", 431],
            'too many header fields' => ["GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", 431],
            'an unknown expectation' => ["POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\nContent-Length: 1\r\n\r\na", 417],
        ];
        foreach ($cases as $name => [$bytes, $status]) {
            yield $name . ', whole' => [$bytes, $status, false];
            yield $name . ', byte by byte' => [$bytes, $status, true];
        }
    }

    #[DataProvider('rejectedRequests')]
    public function testAmbiguousOrOversizedRequestsAreRejectedWithTheirStatus(string $bytes, int $status, bool $byteByByte): void
    {
        [$requests, $error] = self::parse($bytes, $byteByByte);

        self::assertNotNull($error, 'The request was accepted');
        self::assertSame($status, $error->status, $error->getMessage());
        self::assertSame([], $requests);
    }

    #[DataProvider('modes')]
    public function testASimpleGetIsParsedWithItsHeadersKeptAsSent(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("GET /a/b?x=1 HTTP/1.1\r\nHost: example.com\r\nX-Multi: 1\r\nx-multi: 2\r\nAccept:  text/plain \r\n\r\n", $byteByByte);

        self::assertNull($error);
        self::assertCount(1, $requests);
        [$head, $body] = $requests[0];
        self::assertSame('GET', $head->method);
        self::assertSame('/a/b?x=1', $head->target);
        self::assertSame('1.1', $head->protocolVersion);
        self::assertSame('example.com', $head->host);
        self::assertSame(['Host' => ['example.com'], 'X-Multi' => ['1'], 'x-multi' => ['2'], 'Accept' => ['text/plain']], $head->headers);
        self::assertTrue($head->keepAlive);
        self::assertSame('', $body);
    }

    #[DataProvider('modes')]
    public function testAContentLengthBodyIsReadExactlyAndTheNextRequestFollows(bool $byteByByte): void
    {
        [$requests, $error] = self::parse(
            "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
            $byteByByte,
        );

        self::assertNull($error);
        self::assertCount(2, $requests);
        self::assertSame('hello', $requests[0][1]);
        self::assertSame('/b', $requests[1][0]->target);
    }

    #[DataProvider('modes')]
    public function testIdenticalRepeatedContentLengthsAreAccepted(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", $byteByByte);

        self::assertNull($error);
        self::assertSame('abc', $requests[0][1]);
    }

    #[DataProvider('modes')]
    public function testAChunkedBodyWithExtensionsAndTrailersIsDecoded(bool $byteByByte): void
    {
        [$requests, $error] = self::parse(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
            . "5;name=value\r\nhello\r\n1 ; quoted=\"x;y\"\r\n,\r\n0006\r\n world\r\n0\r\nX-Trailer: yes\r\nX-Other: 1\r\n\r\n"
            . "GET /next HTTP/1.1\r\nHost: a\r\n\r\n",
            $byteByByte,
        );

        self::assertNull($error);
        self::assertCount(2, $requests);
        self::assertTrue($requests[0][0]->chunked);
        self::assertSame('hello, world', $requests[0][1]);
        self::assertSame('/next', $requests[1][0]->target);
    }

    #[DataProvider('modes')]
    public function testAnEmptyChunkedBodyIsAccepted(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", $byteByByte);

        self::assertNull($error);
        self::assertSame('', $requests[0][1]);
    }

    #[DataProvider('modes')]
    public function testPipelinedRequestsComeOutInOrder(bool $byteByByte): void
    {
        $bytes = '';
        foreach (['/1', '/2', '/3'] as $path) {
            $bytes .= "GET $path HTTP/1.1\r\nHost: a\r\n\r\n";
        }
        [$requests, $error] = self::parse($bytes, $byteByByte);

        self::assertNull($error);
        self::assertSame(['/1', '/2', '/3'], \array_map(static fn (array $r): string => $r[0]->target, $requests));
    }

    #[DataProvider('modes')]
    public function testHttp10NeedsNoHostAndIsNotKeptAliveUnlessAsked(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", $byteByByte);

        self::assertNull($error);
        self::assertSame('1.0', $requests[0][0]->protocolVersion);
        self::assertNull($requests[0][0]->host);
        self::assertFalse($requests[0][0]->keepAlive);
        self::assertTrue($requests[1][0]->keepAlive);
    }

    #[DataProvider('modes')]
    public function testConnectionCloseEndsKeepAlive(bool $byteByByte): void
    {
        [$requests] = self::parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade, Close\r\n\r\n", $byteByByte);

        self::assertFalse($requests[0][0]->keepAlive);
    }

    #[DataProvider('modes')]
    public function testExpect100ContinueIsRecognised(bool $byteByByte): void
    {
        [$requests] = self::parse("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok", $byteByByte);

        self::assertTrue($requests[0][0]->expectsContinue);
        self::assertSame('ok', $requests[0][1]);
    }

    #[DataProvider('modes')]
    public function testAbsoluteFormAndAsteriskFormTargetsAreAccepted(bool $byteByByte): void
    {
        [$requests, $error] = self::parse(
            "GET http://example.com/x?y=1 HTTP/1.1\r\nHost: example.com\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
            $byteByByte,
        );

        self::assertNull($error);
        self::assertSame('http://example.com/x?y=1', $requests[0][0]->target);
        self::assertSame('*', $requests[1][0]->target);
    }

    #[DataProvider('modes')]
    public function testEmptyLinesBeforeARequestAreIgnored(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", $byteByByte);

        self::assertNull($error);
        self::assertCount(1, $requests);
    }

    #[DataProvider('modes')]
    public function testObsTextInAValueIsKept(bool $byteByByte): void
    {
        [$requests, $error] = self::parse("GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\xc3\xa9\tbar\r\n\r\n", $byteByByte);

        self::assertNull($error);
        self::assertSame(["caf\xc3\xa9\tbar"], $requests[0][0]->headers['X-Name']);
    }

    public function testAnIncompleteRequestWaitsForMoreBytes(): void
    {
        $parser = new RequestParser();
        $parser->buffer = "GET / HTTP/1.1\r\nHost: a\r\n";

        self::assertNull($parser->nextHead());
        $parser->buffer .= "\r\n";
        self::assertNotNull($parser->nextHead());
    }

    /**
     * A keep-alive client sending the same head again gets it parsed as before (nextHead()
     * reuses the last parse of the same bytes): each request read on its own, as a client that
     * waits for each response sends them, interleaved with other heads, bodies and chunked ones.
     */
    public function testARepeatedHeadParsesAsTheFirstTime(): void
    {
        $parser = new RequestParser(maxRequestLineBytes: 100, maxHeaderBytes: 300, maxHeaderCount: 5, maxBodyBytes: 1000);
        $get = "GET /a?x=1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: r1\r\n\r\n";
        $close = "GET /a?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
        $post = "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n";
        $chunked = "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
        $sent = [
            [$get, '', '/a?x=1', ''], [$get, '', '/a?x=1', ''], [$close, '', '/a?x=1', ''], [$get, '', '/a?x=1', ''],
            [$post, 'abc', '/p', 'abc'], [$post, 'xyz', '/p', 'xyz'],
            [$chunked, "2\r\nhi\r\n0\r\n\r\n", '/c', 'hi'], [$chunked, "3\r\nyou\r\n0\r\n\r\n", '/c', 'you'],
            ["\r\n" . $get, '', '/a?x=1', ''],
        ];
        foreach ($sent as $n => [$head, $body, $target, $expectedBody]) {
            $parser->buffer .= $head;
            $parsed = $parser->nextHead();
            self::assertNotNull($parsed, "request $n");
            self::assertSame($target, $parsed->target, "request $n");
            self::assertSame($head !== $close, $parsed->keepAlive, "request $n");
            self::assertSame($head === $get || $head === "\r\n" . $get ? 'r1' : null, $parsed->requestId, "request $n");
            $parser->buffer .= $body;
            self::assertSame($expectedBody, $parsed->hasBody() ? $parser->readBody($parsed) : '', "request $n");
            self::assertSame('', $parser->buffer, "request $n");
        }
        $parser->forgetLastHead();
        $parser->buffer .= "GET /a?x=1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: r1\r\n";
        self::assertNull($parser->nextHead(), 'a head not complete yet is no repeat');
        $parser->buffer .= "\r\n";
        self::assertSame('/a?x=1', $parser->nextHead()?->target);
    }
}
