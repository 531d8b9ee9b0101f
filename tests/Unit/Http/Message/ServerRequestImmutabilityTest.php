<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use Nyholm\Psr7\Uri;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ServerRequestInterface;

/** Every with*() returns a changed copy and leaves the request it was called on as it was. */
final class ServerRequestImmutabilityTest extends TestCase
{
    private static function request(): ServerRequest
    {
        return ServerRequest::fromParsed(
            'GET',
            '/path?a=1',
            '1.1',
            ['Host' => ['example.test'], 'Accept' => ['text/html']],
            'example.test',
            'localhost',
            'body',
            ['REMOTE_ADDR' => '127.0.0.1'],
            'sid=abc',
        );
    }

    /** A comparable picture of everything a request exposes. @return array<string, mixed> */
    private static function snapshot(ServerRequestInterface $request): array
    {
        $body = $request->getBody();

        return [
            'method' => $request->getMethod(),
            'target' => $request->getRequestTarget(),
            'uri' => (string) $request->getUri(),
            'version' => $request->getProtocolVersion(),
            'headers' => $request->getHeaders(),
            'body' => $body instanceof StringStream ? $body->contents() : (string) $body,
            'server' => $request->getServerParams(),
            'cookies' => $request->getCookieParams(),
            'query' => $request->getQueryParams(),
            'files' => $request->getUploadedFiles(),
            'parsed' => $request->getParsedBody(),
            'attributes' => $request->getAttributes(),
        ];
    }

    /** @return iterable<string, array{\Closure(ServerRequest): ServerRequestInterface, string, mixed}> */
    public static function changes(): iterable
    {
        yield 'withMethod' => [static fn (ServerRequest $r) => $r->withMethod('POST'), 'method', 'POST'];
        yield 'withRequestTarget' => [static fn (ServerRequest $r) => $r->withRequestTarget('/other'), 'target', '/other'];
        yield 'withUri' => [static fn (ServerRequest $r) => $r->withUri(new Uri('http://new.test/n')), 'uri', 'http://new.test/n'];
        yield 'withProtocolVersion' => [static fn (ServerRequest $r) => $r->withProtocolVersion('1.0'), 'version', '1.0'];
        yield 'withHeader' => [static fn (ServerRequest $r) => $r->withHeader('Accept', 'x/y'), 'headers', ['Host' => ['example.test'], 'Accept' => ['x/y']]];
        yield 'withAddedHeader' => [static fn (ServerRequest $r) => $r->withAddedHeader('Accept', 'x/y'), 'headers', ['Host' => ['example.test'], 'Accept' => ['text/html', 'x/y']]];
        yield 'withoutHeader' => [static fn (ServerRequest $r) => $r->withoutHeader('Accept'), 'headers', ['Host' => ['example.test']]];
        yield 'withBody' => [static fn (ServerRequest $r) => $r->withBody(new StringStream('new')), 'body', 'new'];
        yield 'withCookieParams' => [static fn (ServerRequest $r) => $r->withCookieParams(['c' => 'd']), 'cookies', ['c' => 'd']];
        yield 'withQueryParams' => [static fn (ServerRequest $r) => $r->withQueryParams(['q' => 'r']), 'query', ['q' => 'r']];
        yield 'withParsedBody' => [static fn (ServerRequest $r) => $r->withParsedBody(['p' => 1]), 'parsed', ['p' => 1]];
        yield 'withAttribute' => [static fn (ServerRequest $r) => $r->withAttribute('user', 7), 'attributes', ['user' => 7]];
        yield 'withoutAttribute' => [static fn (ServerRequest $r) => $r->withAttribute('user', 7)->withoutAttribute('user'), 'attributes', []];
    }

    /** @param \Closure(ServerRequest): ServerRequestInterface $change */
    #[DataProvider('changes')]
    public function testAWithMethodChangesACopyOnly(\Closure $change, string $field, mixed $expected): void
    {
        $request = self::request();
        $before = self::snapshot($request);

        $changed = $change($request);

        self::assertNotSame($request, $changed);
        self::assertSame($before, self::snapshot($request), 'the original is untouched');
        $after = self::snapshot($changed);
        self::assertSame($expected, $after[$field]);
        unset($before[$field], $after[$field]);
        if ($field === 'uri') {
            unset($before['headers'], $after['headers'], $before['target'], $after['target']); // withUri moves Host and target along
        }
        self::assertSame($before, $after, 'nothing else changed');
    }

    public function testWithUploadedFilesChangesACopyOnly(): void
    {
        $request = self::request();
        $file = (new \Nyholm\Psr7\Factory\Psr17Factory())->createUploadedFile(new StringStream('x'), 1, \UPLOAD_ERR_OK);
        $changed = $request->withUploadedFiles(['avatar' => $file, 'docs' => [$file]]);

        self::assertSame(['avatar' => $file, 'docs' => [$file]], $changed->getUploadedFiles());
        self::assertSame([], $request->getUploadedFiles());
    }

    public function testWithUriTakesTheHostAndTheTargetFromTheNewUri(): void
    {
        $changed = self::request()->withUri(new Uri('http://new.test:8080/moved?b=2'));

        self::assertSame(['new.test:8080'], $changed->getHeader('Host'));
        self::assertSame('Host', \array_key_first($changed->getHeaders()));
        self::assertSame('/moved?b=2', $changed->getRequestTarget());
        self::assertSame(['a' => '1'], $changed->getQueryParams(), 'query params are not derived from the URI (PSR-7)');
    }

    public function testWithUriCanPreserveTheHostHeader(): void
    {
        $changed = self::request()->withUri(new Uri('http://new.test/moved'), true);

        self::assertSame(['example.test'], $changed->getHeader('Host'));
    }

    public function testWithUriPreservingTheHostStillSetsAMissingOne(): void
    {
        $request = ServerRequest::fromParsed('GET', '/', '1.0', ['Host' => ['']], '', 'localhost', '', [], null);

        self::assertSame(['new.test'], $request->withUri(new Uri('http://new.test/'), true)->getHeader('Host'));
    }

    public function testWithUriKeepsTheHostWhenTheNewUriHasNone(): void
    {
        self::assertSame(['example.test'], self::request()->withUri(new Uri('/relative'))->getHeader('Host'));
    }

    public function testATargetSetByTheApplicationSurvivesWithUri(): void
    {
        $changed = self::request()->withRequestTarget('*')->withUri(new Uri('http://new.test/moved'));

        self::assertSame('*', $changed->getRequestTarget());
    }

    /** @return iterable<string, array{\Closure(ServerRequest): mixed}> */
    public static function invalidChanges(): iterable
    {
        yield 'an empty method' => [static fn (ServerRequest $r) => $r->withMethod('')];
        yield 'a method with a space' => [static fn (ServerRequest $r) => $r->withMethod('GET /')];
        yield 'an empty target' => [static fn (ServerRequest $r) => $r->withRequestTarget('')];
        yield 'a target with whitespace' => [static fn (ServerRequest $r) => $r->withRequestTarget("/a b")];
        yield 'a target with a line break' => [static fn (ServerRequest $r) => $r->withRequestTarget("/a\r\nHost: evil")];
        yield 'a protocol version with a prefix' => [static fn (ServerRequest $r) => $r->withProtocolVersion('HTTP/1.1')];
        yield 'a parsed body that is a string' => [static fn (ServerRequest $r) => $r->withParsedBody('a=1')];
        yield 'an uploaded file that is a string' => [static fn (ServerRequest $r) => $r->withUploadedFiles(['f' => 'path'])];
    }

    /** @param \Closure(ServerRequest): mixed $change */
    #[DataProvider('invalidChanges')]
    public function testInvalidInputIsRejected(\Closure $change): void
    {
        $this->expectException(\InvalidArgumentException::class);

        $change(self::request());
    }

    public function testLazyPartsBuiltByACopyDoNotLeakIntoTheOriginal(): void
    {
        $request = self::request();
        $copy = $request->withAttribute('x', 1);

        $copy->getBody()->read(2);

        self::assertSame(0, $request->getBody()->tell());
        self::assertSame(2, $copy->getBody()->tell());
    }
}
