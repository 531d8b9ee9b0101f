<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\ServerRequest;
use PHPUnit\Framework\TestCase;

/** Attributes, parsed body and the requests applications build themselves (ServerRequest::create()). */
final class ServerRequestParametersTest extends TestCase
{
    public function testAttributesAreReadWithADefaultForMissingOnes(): void
    {
        $request = ServerRequest::create('GET', '/')->withAttribute('route', 'home')->withAttribute('nothing', null);

        self::assertSame('home', $request->getAttribute('route'));
        self::assertNull($request->getAttribute('nothing', 'default'), 'a stored null is a value');
        self::assertSame('default', $request->getAttribute('missing', 'default'));
        self::assertSame(['route' => 'home', 'nothing' => null], $request->getAttributes());
        self::assertSame($request, $request->withoutAttribute('missing'));
    }

    public function testTheParsedBodyIsAnArrayAnObjectOrNull(): void
    {
        $request = ServerRequest::create('POST', '/');
        $object = new \stdClass();

        self::assertSame(['a' => '1'], $request->withParsedBody(['a' => '1'])->getParsedBody());
        self::assertSame($object, $request->withParsedBody($object)->getParsedBody());
        self::assertNull($request->withParsedBody(['a' => '1'])->withParsedBody(null)->getParsedBody());
    }

    public function testACreatedRequestTakesItsHostAndTargetFromTheUri(): void
    {
        $request = ServerRequest::create('GET', 'https://example.test:8443/a/b?x=1', ['SERVER_NAME' => 'example.test']);

        self::assertSame(['Host' => ['example.test:8443']], $request->getHeaders());
        self::assertSame('/a/b?x=1', $request->getRequestTarget());
        self::assertSame(['SERVER_NAME' => 'example.test'], $request->getServerParams());
        self::assertSame([], $request->getQueryParams(), 'PSR-17: nothing is parsed from the URI');
        self::assertSame([], $request->getCookieParams());
        self::assertSame('', (string) $request->getBody());
        self::assertSame('1.1', $request->getProtocolVersion());
    }

    public function testACreatedRequestWithoutPathTargetsTheRoot(): void
    {
        $request = ServerRequest::create('GET', 'http://example.test');

        self::assertSame('/', $request->getRequestTarget());
        self::assertSame(['example.test'], $request->getHeader('host'));
    }

    public function testACreatedRequestWithAnInvalidMethodIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        ServerRequest::create('BAD METHOD', '/');
    }
}
