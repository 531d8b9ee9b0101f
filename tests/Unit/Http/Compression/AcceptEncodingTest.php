<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Compression;

use Bobbin\Http\Compression\AcceptEncoding;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Which coding an Accept-Encoding header chooses among br and gzip (RFC 9110 §12.5.3). */
final class AcceptEncodingTest extends TestCase
{
    /** @return iterable<string, array{?string, ?string}> */
    public static function headers(): iterable
    {
        yield 'no header' => [null, null];
        yield 'empty' => ['', null];
        yield 'gzip' => ['gzip', 'gzip'];
        yield 'both: the server prefers br' => ['gzip, br', 'br'];
        yield 'a browser' => ['gzip, deflate, br, zstd', 'br'];
        yield 'a higher q wins' => ['br;q=0.5, gzip', 'gzip'];
        yield 'q=0 refuses' => ['br;q=0, gzip;q=0', null];
        yield 'the wildcard' => ['*', 'br'];
        yield 'the wildcard except br' => ['*, br;q=0', 'gzip'];
        yield 'a named coding beats the wildcard' => ['*;q=0.1, gzip;q=0.5', 'gzip'];
        yield 'x-gzip is gzip' => ['x-gzip', 'gzip'];
        yield 'case and spaces' => [' GZIP ; Q=0.8 ', 'gzip'];
        yield 'identity only' => ['identity', null];
        yield 'deflate only' => ['deflate', null];
        yield 'a malformed q counts for nothing' => ['br;q=2, gzip;q=abc', null];
        yield 'q with three decimals' => ['br;q=0.001, gzip;q=0.002', 'gzip'];
        yield 'q=1.000' => ['gzip;q=1.000', 'gzip'];
        yield 'empty elements' => [', , gzip', 'gzip'];
    }

    #[DataProvider('headers')]
    public function testTheChosenCodingFollowsTheQValues(?string $header, ?string $chosen): void
    {
        self::assertSame($chosen, AcceptEncoding::choose($header, ['br', 'gzip']));
    }

    public function testOnlyAnOfferedCodingIsChosen(): void
    {
        self::assertNull(AcceptEncoding::choose('br', ['gzip']));
        self::assertSame('gzip', AcceptEncoding::choose('br, gzip;q=0.1', ['gzip']));
    }
}
