<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\StaticFiles;

use Bobbin\Http\StaticFiles\PathVerdict;
use Bobbin\Http\StaticFiles\StaticPath;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Which request paths may name a static file, before any file is looked at. */
final class StaticPathTest extends TestCase
{
    /** @return iterable<string, array{string, PathVerdict, string}> */
    public static function paths(): iterable
    {
        yield 'a file' => ['/css/site.css', PathVerdict::Look, '/css/site.css'];
        yield 'percent-encoded letters are decoded' => ['/caf%C3%A9.txt', PathVerdict::Look, '/café.txt'];
        yield 'a space' => ['/a%20b.txt', PathVerdict::Look, '/a b.txt'];
        yield 'the well-known directory' => ['/.well-known/acme-challenge/x', PathVerdict::Look, '/.well-known/acme-challenge/x'];
        yield 'dot-dot' => ['/../etc/passwd', PathVerdict::BadRequest, ''];
        yield 'dot-dot climbing from inside' => ['/a/../../etc/passwd', PathVerdict::BadRequest, ''];
        yield 'dot-dot within the root is resolved' => ['/a/../b.txt', PathVerdict::Look, '/b.txt'];
        yield 'dot-dot to the root is the root' => ['/a/..', PathVerdict::Pass, ''];
        yield 'dot-dot cannot reach a dotfile unseen' => ['/a/../.env', PathVerdict::Refused, ''];
        yield 'encoded dot-dot' => ['/%2e%2e/etc/passwd', PathVerdict::BadRequest, ''];
        yield 'a dot segment' => ['/./a.txt', PathVerdict::Look, '/a.txt'];
        yield 'a NUL' => ['/a.txt%00.png', PathVerdict::BadRequest, ''];
        yield 'a control character' => ['/a%0a.txt', PathVerdict::BadRequest, ''];
        yield 'a broken escape' => ['/a%zz.txt', PathVerdict::BadRequest, ''];
        yield 'an encoded slash' => ['/a%2f..%2fetc/passwd', PathVerdict::Pass, ''];
        yield 'an encoded slash in upper case' => ['/a%2F..', PathVerdict::Pass, ''];
        yield 'an encoded backslash' => ['/a%5c..%5cb', PathVerdict::Pass, ''];
        yield 'a backslash' => ['/a\\b', PathVerdict::Pass, ''];
        yield 'a directory' => ['/css/', PathVerdict::Pass, ''];
        yield 'the root' => ['/', PathVerdict::Pass, ''];
        yield 'nothing below the prefix' => ['', PathVerdict::Pass, ''];
        yield 'a double slash' => ['/a//b', PathVerdict::Pass, ''];
        yield 'a dotfile' => ['/.env', PathVerdict::Refused, ''];
        yield 'inside a dot-directory' => ['/.git/config', PathVerdict::Refused, ''];
        yield 'an encoded dotfile' => ['/%2egit/config', PathVerdict::Refused, ''];
        yield 'a deeper dotfile' => ['/a/.htpasswd', PathVerdict::Refused, ''];
        yield 'a deeper well-known is a dot-directory like any other' => ['/a/.well-known/x', PathVerdict::Refused, ''];
    }

    #[DataProvider('paths')]
    public function testAPathIsJudgedBeforeTheFileSystemIsAsked(string $raw, PathVerdict $verdict, string $relative): void
    {
        $judged = StaticPath::judge($raw, false);

        self::assertSame($verdict, $judged->verdict);
        self::assertSame($relative, $judged->relative);
    }

    public function testDotfilesMayBeAllowedButNeverDotDot(): void
    {
        self::assertSame(PathVerdict::Look, StaticPath::judge('/.env', true)->verdict);
        self::assertSame(PathVerdict::BadRequest, StaticPath::judge('/../x', true)->verdict);
    }
}
