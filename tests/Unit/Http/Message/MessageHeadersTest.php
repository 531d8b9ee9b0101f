<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use PHPUnit\Framework\TestCase;

/** Header access shared by requests and responses: case-insensitive, original case kept. */
final class MessageHeadersTest extends TestCase
{
    /** @param array<string, list<string>> $headers */
    private static function request(array $headers): ServerRequest
    {
        return ServerRequest::fromParsed('GET', '/', '1.1', $headers, 'a', 'localhost', '', [], null);
    }

    public function testLookupsIgnoreCaseWhileGetHeadersKeepsTheNamesAsSent(): void
    {
        $request = self::request(['Host' => ['a'], 'X-Request-ID' => ['42'], 'accept' => ['text/html', 'application/json']]);

        self::assertTrue($request->hasHeader('x-request-id'));
        self::assertSame(['42'], $request->getHeader('X-REQUEST-ID'));
        self::assertSame('text/html, application/json', $request->getHeaderLine('Accept'));
        self::assertSame(['Host', 'X-Request-ID', 'accept'], \array_keys($request->getHeaders()));
        self::assertFalse($request->hasHeader('Cookie'));
        self::assertSame([], $request->getHeader('Cookie'));
        self::assertSame('', $request->getHeaderLine('Cookie'));
    }

    public function testFieldsSentWithDifferentCaseAreOneField(): void
    {
        $request = self::request(['Host' => ['a'], 'X-Tag' => ['one'], 'x-tag' => ['two'], 'X-TAG' => ['three']]);

        self::assertSame(['Host' => ['a'], 'X-Tag' => ['one', 'two', 'three']], $request->getHeaders());
        self::assertSame('one, two, three', $request->getHeaderLine('x-tag'));
    }

    public function testANumericHeaderNameWorksThoughPhpMakesItAnIntegerKey(): void
    {
        $request = self::request(['Host' => ['a'], '123' => ['x']]);

        self::assertTrue($request->hasHeader('123'));
        self::assertSame(['x'], $request->getHeader('123'));
        self::assertSame('y', $request->withHeader('123', 'y')->getHeaderLine('123'));
    }

    public function testWithHeaderReplacesAFieldWhateverTheCaseOfItsName(): void
    {
        $request = self::request(['Host' => ['a'], 'content-type' => ['text/plain']]);
        $changed = $request->withHeader('Content-Type', 'application/json');

        self::assertSame(['Host' => ['a'], 'Content-Type' => ['application/json']], $changed->getHeaders());
        self::assertSame(['text/plain'], $request->getHeader('Content-Type'), 'the original is unchanged');
    }

    public function testWithAddedHeaderAppendsUnderTheExistingName(): void
    {
        $request = self::request(['Host' => ['a'], 'Accept' => ['text/html']]);
        $changed = $request->withAddedHeader('ACCEPT', ['application/json', 'text/plain']);

        self::assertSame(['text/html', 'application/json', 'text/plain'], $changed->getHeaders()['Accept']);
        self::assertSame(['x'], $request->withAddedHeader('X-New', 'x')->getHeader('x-new'));
        self::assertSame(['text/html'], $request->getHeader('Accept'));
    }

    public function testWithoutHeaderRemovesAFieldWhateverTheCaseOfItsName(): void
    {
        $request = self::request(['Host' => ['a'], 'Accept' => ['text/html']]);
        $changed = $request->withoutHeader('accept');

        self::assertFalse($changed->hasHeader('Accept'));
        self::assertSame(['Host' => ['a']], $changed->getHeaders());
        self::assertTrue($request->hasHeader('Accept'));
        self::assertSame($request, $request->withoutHeader('X-Absent'), 'nothing to remove, nothing to copy');
    }

    public function testValuesAreTrimmedAndNumbersBecomeStrings(): void
    {
        $response = (new Response())->withHeader('Content-Length', 42)->withHeader('X-Ratio', 0.5)->withHeader('X-Pad', " \tvalue \t");

        self::assertSame(['42'], $response->getHeader('content-length'));
        self::assertSame(['0.5'], $response->getHeader('x-ratio'));
        self::assertSame(['value'], $response->getHeader('x-pad'));
    }

    public function testAResponseMergesConstructorHeadersThatDifferOnlyInCase(): void
    {
        $response = new Response(200, ['Vary' => 'Accept', 'vary' => ['Origin'], 'Cache-Control' => 'no-store']);

        self::assertSame(['Vary' => ['Accept', 'Origin'], 'Cache-Control' => ['no-store']], $response->getHeaders());
    }
}
