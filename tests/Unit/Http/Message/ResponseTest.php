<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\BodyFraming;
use Bobbin\Http\Message\Response;
use Bobbin\Http\ResponseFramer;
use Bobbin\Http\Message\StringStream;
use Nyholm\Psr7\Stream;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ResponseTest extends TestCase
{
    public function testADefaultResponseIsAnEmpty200Ok(): void
    {
        $response = new Response();

        self::assertSame(200, $response->getStatusCode());
        self::assertSame('OK', $response->getReasonPhrase());
        self::assertSame([], $response->getHeaders());
        self::assertSame('', (string) $response->getBody());
        self::assertSame('1.1', $response->getProtocolVersion());
    }

    public function testTheReasonPhraseDefaultsToTheStandardOne(): void
    {
        self::assertSame('Not Found', (new Response(404))->getReasonPhrase());
        self::assertSame('Content Too Large', (new Response(413))->getReasonPhrase());
        self::assertSame('', (new Response(299))->getReasonPhrase(), 'no standard phrase');
        self::assertSame('Gone Fishing', (new Response(410, [], '', '1.1', 'Gone Fishing'))->getReasonPhrase());
    }

    public function testWithStatusChangesStatusAndReasonOfACopy(): void
    {
        $response = new Response(200);
        $moved = $response->withStatus(301);

        self::assertSame(301, $moved->getStatusCode());
        self::assertSame('Moved Permanently', $moved->getReasonPhrase());
        self::assertSame('Elsewhere', $response->withStatus(302, 'Elsewhere')->getReasonPhrase());
        self::assertSame(200, $response->getStatusCode());
        self::assertSame('OK', $response->getReasonPhrase());
    }

    /** @return iterable<string, array{int}> */
    public static function invalidStatuses(): iterable
    {
        yield 'below 100' => [99];
        yield 'above 599' => [600];
        yield 'zero' => [0];
    }

    #[DataProvider('invalidStatuses')]
    public function testAStatusOutsideTheRangeIsRejectedByTheConstructor(int $status): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Response($status);
    }

    #[DataProvider('invalidStatuses')]
    public function testAStatusOutsideTheRangeIsRejectedByWithStatus(int $status): void
    {
        $this->expectException(\InvalidArgumentException::class);

        (new Response())->withStatus($status);
    }

    public function testAReasonPhraseWithALineBreakIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        (new Response())->withStatus(200, "OK\r\nSet-Cookie: x=1");
    }

    public function testHeadersGivenToTheConstructorAreNormalisedToLists(): void
    {
        $response = new Response(201, ['Location' => '/items/1', 'Vary' => ['Accept', 'Origin'], 'Content-Length' => 0]);

        self::assertSame(['Location' => ['/items/1'], 'Vary' => ['Accept', 'Origin'], 'Content-Length' => ['0']], $response->getHeaders());
        self::assertSame('Accept, Origin', $response->getHeaderLine('vary'));
    }

    public function testAStringBodyBecomesAStringStream(): void
    {
        $body = (new Response(200, [], '{"ok":true}'))->getBody();

        self::assertInstanceOf(StringStream::class, $body);
        self::assertSame('{"ok":true}', $body->contents());
        self::assertSame(11, $body->getSize());
    }

    public function testAnyStreamCanBeTheBody(): void
    {
        $stream = Stream::create('from nyholm');
        $response = new Response(200, [], $stream);

        self::assertSame($stream, $response->getBody());
        $replaced = $response->withBody(new StringStream('replaced'));
        self::assertSame('replaced', (string) $replaced->getBody());
        self::assertSame($stream, $response->getBody());
    }

    public function testTheProtocolVersionCanBeChosen(): void
    {
        self::assertSame('1.0', (new Response(200, [], '', '1.0'))->getProtocolVersion());
        self::assertSame('2', (new Response())->withProtocolVersion('2')->getProtocolVersion());

        $this->expectException(\InvalidArgumentException::class);
        new Response(200, [], '', 'one');
    }

    /**
     * The second response with fields seen before keeps them as given until read
     * (Response::plainHeaders()): what it shows and what goes on the wire must be what the
     * first, normalised at once, shows and sends.
     *
     * @return iterable<string, array{array<string, string>}>
     */
    public static function fieldSets(): iterable
    {
        yield 'one field' => [['X-Plain-One' => 'text/plain; charset=utf-8']];
        yield 'several' => [['X-Plain-A' => 'a', 'X-Plain-B' => 'b c', 'Cache-Control' => 'no-store']];
        yield 'names alike but for case' => [['X-Plain-Same' => 'first', 'x-plain-same' => 'second']];
        yield 'framing fields the server replaces' => [['X-Plain-C' => 'c', 'Content-Length' => '99', 'Connection' => 'close']];
    }

    /** @param array<string, string> $fields */
    #[DataProvider('fieldSets')]
    public function testFieldsKeptAsGivenShowAndFrameAsNormalisedOnesDo(array $fields): void
    {
        $framer = new ResponseFramer("Server: t\r\n");
        $first = new Response(200, $fields, 'body');
        $firstFramed = $framer->frame($first, 'GET', '1.1', true, "Date: d\r\n", "X-Request-Id: r\r\n");
        $second = new Response(200, $fields, 'body');
        $secondFramed = $framer->frame($second, 'GET', '1.1', true, "Date: d\r\n", "X-Request-Id: r\r\n");

        self::assertSame($firstFramed->bytes, $secondFramed->bytes);
        self::assertSame($firstFramed->keepAlive, $secondFramed->keepAlive);
        self::assertSame(BodyFraming::ContentLength, $secondFramed->framing);
        self::assertSame($first->getHeaders(), $second->getHeaders());
        $changed = $second->withHeader('X-Plain-Added', 'yes')->withoutHeader('X-Plain-A');
        self::assertSame($first->withHeader('X-Plain-Added', 'yes')->withoutHeader('X-Plain-A')->getHeaders(), $changed->getHeaders());
    }

    public function testAResponseWithFieldsSeenBeforeKeepsThemAsGivenUntilRead(): void
    {
        $fields = ['X-Plain-Kept' => 'kept'];
        new Response(200, $fields);
        $response = new Response(200, $fields);

        self::assertSame($fields, $response->plainHeaders());
        self::assertSame(['X-Plain-Kept' => ['kept']], $response->getHeaders());
        self::assertNull($response->plainHeaders(), 'still plain after getHeaders() made the lists');
    }

    public function testFieldsWhoseNamesDifferOnlyInCaseAreNeverKeptAsGivenHoweverOftenTheyCome(): void
    {
        $plain = ['X-Case-Plain' => 'one'];
        $alike = ['X-Case-Alike' => 'first', 'x-case-alike' => 'second'];
        foreach ([$plain, $alike, $plain, $alike, $plain, $alike] as $i => $fields) {
            $response = new Response(200, $fields);
            if ($fields === $alike) {
                self::assertNull($response->plainHeaders(), "response {$i}");
                self::assertSame(['X-Case-Alike' => ['first', 'second']], $response->getHeaders());
            }
        }
        self::assertSame($plain, (new Response(200, $plain))->plainHeaders());
    }
}
