<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The request as the server builds it from parsed parts (ServerRequest::fromParsed()). */
final class ServerRequestFromTheWireTest extends TestCase
{
    /**
     * @param array<string, list<string>> $headers
     * @param array<string, mixed> $serverParams
     */
    private static function request(
        string $target = '/',
        ?string $host = 'example.test',
        array $headers = [],
        string $body = '',
        ?string $cookie = null,
        string $method = 'GET',
        string $version = '1.1',
        array $serverParams = [],
    ): ServerRequest {
        if ($host !== null) {
            $headers = ['Host' => [$host]] + $headers;
        }

        return ServerRequest::fromParsed($method, $target, $version, $headers, $host, '127.0.0.1:8080', $body, $serverParams, $cookie);
    }

    public function testTheUriComesFromTheHostHeaderAndTheTarget(): void
    {
        $uri = self::request('/info?a=1', 'Example.TEST:8000')->getUri();

        self::assertSame('http://example.test:8000/info?a=1', (string) $uri);
        self::assertSame('/info', $uri->getPath());
        self::assertSame('a=1', $uri->getQuery());
    }

    public function testAnEmptyHostHeaderFallsBackToTheDefaultAuthority(): void
    {
        $request = self::request('/x', '');

        self::assertSame('http://127.0.0.1:8080/x', (string) $request->getUri());
        self::assertSame([''], $request->getHeader('Host'), 'the header stays as sent');
    }

    public function testARequestWithoutHostGetsOneFromTheDefaultAuthorityPlacedFirst(): void
    {
        $request = self::request('/x', null, ['Accept' => ['*/*']], version: '1.0');

        self::assertSame('http://127.0.0.1:8080/x', (string) $request->getUri());
        self::assertSame(['Host' => ['127.0.0.1:8080'], 'Accept' => ['*/*']], $request->getHeaders());
    }

    public function testAnAbsoluteFormTargetIsTheUri(): void
    {
        $request = self::request('http://other.test/a?q=1', 'other.test');

        self::assertSame('http://other.test/a?q=1', (string) $request->getUri());
        self::assertSame('http://other.test/a?q=1', $request->getRequestTarget());
        self::assertSame(['q' => '1'], $request->getQueryParams());
    }

    public function testTheAsteriskTargetIsKeptAndTheUriIsTheAuthorityAlone(): void
    {
        $request = self::request('*', method: 'OPTIONS');

        self::assertSame('*', $request->getRequestTarget());
        self::assertSame('http://example.test', (string) $request->getUri());
    }

    /** @return iterable<string, array{string}> */
    public static function targetsTheUriWouldNormalise(): iterable
    {
        yield 'brackets in the query' => ['/info?a=1&b[]=2'];
        yield 'a stray percent sign' => ['/a%zz'];
        yield 'an empty query' => ['/p?'];
        yield 'a fragment' => ['/p#top'];
        yield 'a double slash' => ['//x//y'];
        yield 'encoded slashes' => ['/a%2Fb'];
    }

    #[DataProvider('targetsTheUriWouldNormalise')]
    public function testTheRequestTargetIsExactlyAsTheClientSentIt(string $target): void
    {
        self::assertSame($target, self::request($target)->getRequestTarget());
    }

    /** @return iterable<string, array{string}> */
    public static function authoritiesNoUriParserAccepts(): iterable
    {
        yield 'a port above 65535' => ['example.test:99999'];
        yield 'a port only' => [':80'];
        yield 'an IPv6 literal with a port above 65535' => ['[::1]:70000'];
    }

    #[DataProvider('authoritiesNoUriParserAccepts')]
    public function testAHostNoUriParserAcceptsIsRejectedAtOnceSoTheServerCanAnswer400(string $host): void
    {
        $this->expectException(\InvalidArgumentException::class);

        self::request('/', $host);
    }

    public function testAnIpv6HostIsAccepted(): void
    {
        self::assertSame('[::1]', self::request('/', '[::1]:8080')->getUri()->getHost());
    }

    public function testQueryParametersAreParsedLikePhpFillsGet(): void
    {
        $request = self::request('/search?q=a+b&tags[]=x&tags[]=y&empty#fragment=1');

        self::assertSame(['q' => 'a b', 'tags' => ['x', 'y'], 'empty' => ''], $request->getQueryParams());
        self::assertSame([], self::request('/no-query')->getQueryParams());
    }

    public function testCookiesAreParsedFromTheCookieHeaderAsPhpFillsCookie(): void
    {
        $request = self::request(cookie: 'sid=abc; theme="dark"; name=J%C3%BCrgen; sid=second; flag; =nameless; list[]=1; list[]=2; a.b=dot; sp= x ');

        self::assertSame(
            ['sid' => 'abc', 'theme' => '"dark"', 'name' => 'Jürgen', 'flag' => '', 'list' => ['1', '2'], 'a_b' => 'dot', 'sp' => ' x '],
            $request->getCookieParams(),
        );
        self::assertSame([], self::request()->getCookieParams());
    }

    public function testTheBodyIsAStringStreamOverTheReceivedBytes(): void
    {
        $request = self::request(body: '{"a":1}', method: 'POST');
        $body = $request->getBody();

        self::assertInstanceOf(StringStream::class, $body);
        self::assertSame('{"a":1}', (string) $body);
        self::assertSame($body, $request->getBody(), 'one stream, so its position is kept');
        self::assertSame('', (string) self::request()->getBody());
    }

    public function testMethodProtocolVersionAndServerParamsAreThoseGiven(): void
    {
        $request = self::request(method: 'PATCH', version: '1.0', serverParams: ['REMOTE_ADDR' => '10.0.0.1']);

        self::assertSame('PATCH', $request->getMethod());
        self::assertSame('1.0', $request->getProtocolVersion());
        self::assertSame('10.0.0.1', $request->getServerParams()['REMOTE_ADDR']);
        self::assertSame('CGI/1.1', $request->getServerParams()['GATEWAY_INTERFACE'], 'completed as PHP-FPM fills $_SERVER');
        self::assertSame([], $request->getAttributes());
        self::assertSame([], $request->getUploadedFiles());
        self::assertNull($request->getParsedBody());
    }

    /**
     * The server hands the request line and its time over unmerged (requestTime): they join the
     * parameters when first asked for, in the order PHP-FPM's would have them, as received
     * whatever the application changed since.
     */
    public function testTheRequestLineAndTimeJoinTheServerParamsWhenFirstAsked(): void
    {
        $base = ['REMOTE_ADDR' => '10.0.0.1', 'REMOTE_PORT' => '5000'];
        $request = ServerRequest::fromParsed('PATCH', '/a?b=1', '1.0', ['Host' => ['x.test']], 'x.test', 'a', '', $base, requestTime: 1700000000.25);
        $moved = $request->withMethod('GET')->withRequestTarget('/elsewhere')->withProtocolVersion('1.1');

        foreach ([$request, $moved] as $asked) {
            $params = $asked->getServerParams();
            self::assertSame(['REMOTE_ADDR', 'REMOTE_PORT', 'REQUEST_METHOD', 'REQUEST_URI', 'SERVER_PROTOCOL', 'REQUEST_TIME', 'REQUEST_TIME_FLOAT'], \array_slice(\array_keys($params), 0, 7));
            self::assertSame(['PATCH', '/a?b=1', 'HTTP/1.0', 1700000000, 1700000000.25], [$params['REQUEST_METHOD'], $params['REQUEST_URI'], $params['SERVER_PROTOCOL'], $params['REQUEST_TIME'], $params['REQUEST_TIME_FLOAT']]);
            self::assertSame('b=1', $params['QUERY_STRING']);
            self::assertSame('x.test', $params['HTTP_HOST']);
        }
        self::assertSame($request->getServerParams(), $request->getServerParams());
    }

    public function testAUrlEncodedPostBodyIsParsedAsPhpFillsPost(): void
    {
        $request = ServerRequest::fromParsed('POST', '/', '1.1', ['Host' => ['a']], 'a', 'a', 'x=1&list[]=a&list[]=b&n[k]=v', [], null, contentType: 'application/x-www-form-urlencoded; charset=UTF-8');

        self::assertSame(['x' => '1', 'list' => ['a', 'b'], 'n' => ['k' => 'v']], $request->getParsedBody());
        self::assertSame(['y' => '2'], $request->withParsedBody(['y' => '2'])->getParsedBody());
    }

    public function testOnlyAPostWithAFormTypeHasAParsedBody(): void
    {
        $put = ServerRequest::fromParsed('PUT', '/', '1.1', ['Host' => ['a']], 'a', 'a', 'x=1', [], null, contentType: 'application/x-www-form-urlencoded');
        $json = ServerRequest::fromParsed('POST', '/', '1.1', ['Host' => ['a']], 'a', 'a', '{"x":1}', [], null, contentType: 'application/json');

        self::assertNull($put->getParsedBody());
        self::assertNull($json->getParsedBody());
    }

    public function testAnHttpsSchemeFromATrustedProxyReachesTheUri(): void
    {
        $request = ServerRequest::fromParsed('GET', '/x', '1.1', ['Host' => ['example.test']], 'example.test', 'a', scheme: 'https');

        self::assertSame('https://example.test/x', (string) $request->getUri());
    }

    public function testNothingIsBuiltBeforeItIsAskedFor(): void
    {
        $request = self::request('/x?a=1', headers: ['Accept' => ['*/*']], body: 'body', cookie: 'a=1');
        // Laziness is the point of this class, and not observable through PSR-7: look inside.
        $lazy = ['uri', 'queryParams', 'cookieParams', 'body', 'headerNames'];
        $state = static fn (): array => \array_map(
            static fn (string $property): mixed => (new \ReflectionProperty(ServerRequest::class, $property))->getValue($request),
            \array_combine($lazy, $lazy),
        );
        self::assertSame(\array_fill_keys($lazy, null), $state());

        $request->getUri();
        $request->getQueryParams();
        $request->getCookieParams();
        $request->getBody();
        $request->hasHeader('accept');

        self::assertNotContains(null, $state());
    }

    public function testTheUriIsBuiltOnce(): void
    {
        $request = self::request('/x');

        self::assertSame($request->getUri(), $request->getUri());
    }
}
