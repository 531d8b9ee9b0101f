<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Message;

use Bobbin\Http\Message\Uri;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\UriInterface;

/** Bobbin's PSR-7 URI: parsing, RFC 3986 encoding, the with*() methods and the server's lazy form. */
final class UriTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function parts(UriInterface $uri): array
    {
        return [
            'scheme' => $uri->getScheme(), 'userInfo' => $uri->getUserInfo(), 'host' => $uri->getHost(),
            'port' => $uri->getPort(), 'authority' => $uri->getAuthority(), 'path' => $uri->getPath(),
            'query' => $uri->getQuery(), 'fragment' => $uri->getFragment(), 'string' => (string) $uri,
        ];
    }

    public function testEveryPartIsReadFromAUriString(): void
    {
        $uri = new Uri('HTTPS://user:pa%20ss@Example.COM:8443/a/b?x=1&y=2#top');

        self::assertSame([
            'scheme' => 'https', 'userInfo' => 'user:pa%20ss', 'host' => 'example.com', 'port' => 8443,
            'authority' => 'user:pa%20ss@example.com:8443', 'path' => '/a/b', 'query' => 'x=1&y=2',
            'fragment' => 'top', 'string' => 'https://user:pa%20ss@example.com:8443/a/b?x=1&y=2#top',
        ], self::parts($uri));
    }

    public function testAnEmptyUriHasEmptyParts(): void
    {
        self::assertSame([
            'scheme' => '', 'userInfo' => '', 'host' => '', 'port' => null, 'authority' => '', 'path' => '',
            'query' => '', 'fragment' => '', 'string' => '',
        ], self::parts(new Uri()));
    }

    /** @return iterable<string, array{string, string, string, string, string}> uri, authority, path, query, fragment */
    public static function references(): iterable
    {
        yield 'relative path' => ['a/b', '', 'a/b', '', ''];
        yield 'absolute path with query' => ['/p?q', '', '/p', 'q', ''];
        yield 'network-path reference' => ['//h.test/p', 'h.test', '/p', '', ''];
        yield 'query only' => ['?q=1', '', '', 'q=1', ''];
        yield 'fragment only' => ['#f', '', '', '', 'f'];
        yield 'a "?" in the fragment stays there' => ['/p#a?b', '', '/p', '', 'a?b'];
        yield 'a "?" in the query stays there' => ['/p?a?b#c', '', '/p', 'a?b', 'c'];
        yield 'an empty authority' => ['file:///etc/hosts', '', '/etc/hosts', '', ''];
        yield 'an empty port is no port' => ['http://h.test:/x', 'h.test', '/x', '', ''];
        yield 'an IPv6 literal' => ['http://[::1]:8080/', '[::1]:8080', '/', '', ''];
    }

    #[DataProvider('references')]
    public function testUriReferencesAreSplitAsRfc3986AppendixBDoes(string $string, string $authority, string $path, string $query, string $fragment): void
    {
        $uri = new Uri($string);

        self::assertSame([$authority, $path, $query, $fragment], [$uri->getAuthority(), $uri->getPath(), $uri->getQuery(), $uri->getFragment()]);
    }

    public function testDefaultPortsAreLeftOutButKeptForAnotherScheme(): void
    {
        $uri = new Uri('http://example.test:80/');

        self::assertNull($uri->getPort());
        self::assertSame('example.test', $uri->getAuthority());
        self::assertSame('http://example.test/', (string) $uri);
        self::assertSame(80, $uri->withScheme('https')->getPort());
        self::assertSame('https://example.test:80/', (string) $uri->withScheme('https'));
        self::assertNull((new Uri('https://example.test:443'))->getPort());
        self::assertSame(8080, (new Uri('http://example.test:8080'))->getPort());
        self::assertSame(80, (new Uri('//example.test:80'))->getPort(), 'no scheme, no default');
    }

    /** @return iterable<string, array{string, string}> */
    public static function encodedOnTheWayIn(): iterable
    {
        yield 'a space and brackets in the path' => ['http://h/a b/[c]', 'http://h/a%20b/%5Bc%5D'];
        yield 'a percent sign starting no escape' => ['/a%zz/100%', '/a%25zz/100%25'];
        yield 'escapes are not encoded twice' => ['/a%2Fb?c=%41', '/a%2Fb?c=%41'];
        yield 'UTF-8 in path and query' => ["/caf\u{e9}?q=\u{fc}", '/caf%C3%A9?q=%C3%BC'];
        yield 'brackets and quotes in the query' => ['/?a[]=1&b="x"', '/?a%5B%5D=1&b=%22x%22'];
        yield 'sub-delims, ":" and "@" stay as they are' => ["/p:@!$&'()*+,;=?/:@?", "/p:@!$&'()*+,;=?/:@?"];
        yield 'the fragment like the query' => ['/#a b#c', '/#a%20b%23c'];
        yield 'a non-ASCII host' => ["http://b\u{fc}cher.test/", 'http://b%c3%bccher.test/'];
    }

    #[DataProvider('encodedOnTheWayIn')]
    public function testCharactersAComponentMayNotHoldArePercentEncoded(string $input, string $expected): void
    {
        self::assertSame($expected, (string) new Uri($input));
    }

    /** @return iterable<string, array{string}> */
    public static function invalidUris(): iterable
    {
        yield 'a port above 65535' => ['http://example.test:65536/'];
        yield 'a port of letters' => ['http://example.test:80a/'];
        yield 'a port without host' => ['http://:80/'];
        yield 'a scheme starting with a digit' => ['1http://example.test/'];
        yield 'an unterminated IP literal' => ['http://[::1/'];
        yield 'something after an IP literal' => ['http://[::1]x/'];
        yield 'a malformed IP literal' => ['http://[example]/'];
        yield 'a space in the host' => ['http://exa mple.test/'];
        yield 'a bracket in a reg-name' => ['http://exa[mple.test/'];
    }

    #[DataProvider('invalidUris')]
    public function testStringsThatAreNoUriAreRejected(string $uri): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Uri($uri);
    }

    public function testWithMethodsChangeACopy(): void
    {
        $uri = new Uri('http://example.test/a?b#c');
        $changed = $uri->withScheme('HTTPS')->withUserInfo('u', 'p')->withHost('Other.TEST')->withPort(8443)
            ->withPath('/x y')->withQuery('q=1 2')->withFragment('f g');

        self::assertSame('https://u:p@other.test:8443/x%20y?q=1%202#f%20g', (string) $changed);
        self::assertSame('http://example.test/a?b#c', (string) $uri);
    }

    public function testWithMethodsGivingTheSameValueReturnTheSameInstance(): void
    {
        $uri = new Uri('http://u@example.test:81/a?b#c');

        self::assertSame($uri, $uri->withScheme('HTTP'));
        self::assertSame($uri, $uri->withUserInfo('u'));
        self::assertSame($uri, $uri->withHost('EXAMPLE.test'));
        self::assertSame($uri, $uri->withPort(81));
        self::assertSame($uri, $uri->withPath('/a'));
        self::assertSame($uri, $uri->withQuery('b'));
        self::assertSame($uri, $uri->withFragment('c'));
    }

    public function testUserInformationIsEncodedAndAnEmptyUserRemovesIt(): void
    {
        $uri = new Uri('http://example.test/');

        self::assertSame('us%3Aer:p:a%40ss', $uri->withUserInfo('us:er', 'p:a@ss')->getUserInfo());
        self::assertSame('user', $uri->withUserInfo('user', '')->getUserInfo());
        self::assertSame('', $uri->withUserInfo('user', 'pass')->withUserInfo('', 'pass')->getUserInfo());
        self::assertSame('', $uri->withUserInfo('user')->withHost('')->getAuthority(), 'no host, no authority');
    }

    /** @return iterable<string, array{\Closure(Uri): Uri}> */
    public static function invalidChanges(): iterable
    {
        yield 'a scheme with a space' => [static fn (Uri $u) => $u->withScheme('ht tp')];
        yield 'a scheme with a colon' => [static fn (Uri $u) => $u->withScheme('http:')];
        yield 'a host with a port' => [static fn (Uri $u) => $u->withHost('example.test:80')];
        yield 'a host with a slash' => [static fn (Uri $u) => $u->withHost('example.test/x')];
        yield 'a host with a line break' => [static fn (Uri $u) => $u->withHost("example.test\r\nX: y")];
        yield 'a negative port' => [static fn (Uri $u) => $u->withPort(-1)];
        yield 'a port above 65535' => [static fn (Uri $u) => $u->withPort(65536)];
    }

    /** @param \Closure(Uri): Uri $change */
    #[DataProvider('invalidChanges')]
    public function testInvalidPartsAreRejected(\Closure $change): void
    {
        $this->expectException(\InvalidArgumentException::class);

        $change(new Uri('http://example.test/'));
    }

    public function testToStringFollowsPsr7ForPathsThatWouldChangeTheMeaning(): void
    {
        $uri = new Uri('http://example.test');

        self::assertSame('http://example.test/rootless', (string) $uri->withPath('rootless'), 'a rootless path after an authority gets a "/"');
        self::assertSame('rootless', $uri->withPath('rootless')->getPath(), 'but the path itself stays');
        self::assertSame('/x', (string) (new Uri())->withPath('//x'), 'without authority, leading slashes are reduced to one');
        self::assertSame('http://example.test//x', (string) $uri->withPath('//x'), 'with an authority they are kept');
        self::assertSame('http://example.test', (string) $uri->withQuery('')->withFragment(''), 'empty query and fragment are left out');
        self::assertSame('mailto:someone@example.test', (string) new Uri('mailto:someone@example.test'));
    }

    public function testARequestUriIsSplitFromHostAndTarget(): void
    {
        $uri = Uri::fromRequest('Example.TEST:8000', '/info?a=1#frag');

        self::assertSame([
            'scheme' => 'http', 'userInfo' => '', 'host' => 'example.test', 'port' => 8000,
            'authority' => 'example.test:8000', 'path' => '/info', 'query' => 'a=1', 'fragment' => 'frag',
            'string' => 'http://example.test:8000/info?a=1#frag',
        ], self::parts($uri));
    }

    /** @return iterable<string, array{string, string, string, string}> target, path, query, string */
    public static function requestTargets(): iterable
    {
        yield 'the root' => ['/', '/', '', 'http://h.test/'];
        yield 'the asterisk form (given as "")' => ['', '', '', 'http://h.test'];
        yield 'an empty query' => ['/p?', '/p', '', 'http://h.test/p'];
        yield 'brackets in the query' => ['/p?a[]=1', '/p', 'a%5B%5D=1', 'http://h.test/p?a%5B%5D=1'];
        yield 'a stray percent sign' => ['/a%zz', '/a%25zz', '', 'http://h.test/a%25zz'];
        yield 'encoded slashes stay encoded' => ['/a%2Fb', '/a%2Fb', '', 'http://h.test/a%2Fb'];
        yield 'a double slash is kept' => ['//x//y', '//x//y', '', 'http://h.test//x//y'];
        yield 'characters a path may not hold' => ['/a"b<c>{d}|e\\f^g`h', '/a%22b%3Cc%3E%7Bd%7D%7Ce%5Cf%5Eg%60h', '', 'http://h.test/a%22b%3Cc%3E%7Bd%7D%7Ce%5Cf%5Eg%60h'];
    }

    #[DataProvider('requestTargets')]
    public function testARequestTargetIsReadAsTheUriWouldBe(string $target, string $path, string $query, string $string): void
    {
        $uri = Uri::fromRequest('h.test', $target);

        self::assertSame([$path, $query, $string], [$uri->getPath(), $uri->getQuery(), (string) $uri]);
        self::assertSame($string, (string) new Uri('http://h.test' . $target), 'the same URI as parsing it whole');
    }

    public function testARequestUriLeavesOutTheDefaultPortAndKeepsIpLiterals(): void
    {
        self::assertSame('http://example.test/', (string) Uri::fromRequest('example.test:80', '/'));
        self::assertSame('[::1]', Uri::fromRequest('[::1]:8080', '/')->getHost());
        self::assertSame(8080, Uri::fromRequest('[::1]:8080', '/')->getPort());
    }

    public function testARequestUriSplitsNothingBeforeAPartIsAskedFor(): void
    {
        $uri = Uri::fromRequest('example.test:8000', '/a?b=1');
        $pending = static fn (string $property): mixed => (new \ReflectionProperty(Uri::class, $property))->getValue($uri);

        self::assertSame('example.test:8000', $pending('pendingAuthority'));
        self::assertSame('/a?b=1', $pending('pendingTarget'));

        self::assertSame('/a', $uri->getPath());
        self::assertNull($pending('pendingTarget'));
        self::assertSame('example.test:8000', $pending('pendingAuthority'), 'the router needs the path only');

        self::assertSame('example.test', $uri->getHost());
        self::assertNull($pending('pendingAuthority'));
    }

    public function testChangingOnePartOfARequestUriKeepsTheOthers(): void
    {
        $uri = Uri::fromRequest('example.test:8000', '/a?b=1#f');

        self::assertSame('http://example.test:8000/moved?b=1#f', (string) $uri->withPath('/moved'));
        self::assertSame('http://example.test:8000/a?c=2#f', (string) $uri->withQuery('c=2'));
        self::assertSame('http://other.test:8000/a?b=1#f', (string) $uri->withHost('other.test'));
        self::assertSame('http://example.test/a?b=1#f', (string) $uri->withPort(null));
        self::assertSame('https://example.test:8000/a?b=1#f', (string) $uri->withScheme('https'));
        self::assertSame('http://example.test:8000/a?b=1#f', (string) $uri, 'the original is unchanged');
    }

    /** @return iterable<string, array{string}> */
    public static function invalidRequestAuthorities(): iterable
    {
        yield 'a port above 65535' => ['example.test:99999'];
        yield 'a port only' => [':80'];
        yield 'an IPv6 literal with a port above 65535' => ['[::1]:70000'];
        yield 'user information' => ['user@example.test'];
        yield 'a second colon' => ['example.test:80:80'];
        yield 'a port of more than five digits' => ['example.test:000080'];
    }

    #[DataProvider('invalidRequestAuthorities')]
    public function testARequestAuthorityThatIsNoHostAndPortIsRejected(string $authority): void
    {
        $this->expectException(\InvalidArgumentException::class);

        Uri::assertRequestAuthority($authority);
    }

    public function testValidRequestAuthoritiesPass(): void
    {
        foreach (['example.test', 'example.test:', 'example.test:65535', 'example.test:00080', '127.0.0.1:0', '[::1]', '[::1]:80', 'localhost'] as $authority) {
            Uri::assertRequestAuthority($authority);
        }
        $this->addToAssertionCount(1);
    }
}
