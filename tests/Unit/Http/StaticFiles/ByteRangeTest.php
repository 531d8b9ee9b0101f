<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\StaticFiles;

use Bobbin\Http\StaticFiles\ByteRange;
use Bobbin\Http\StaticFiles\RangeKind;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Range headers against a 1,000-byte file: what each asks for (RFC 9110 §14). */
final class ByteRangeTest extends TestCase
{
    /** @return iterable<string, array{?string, RangeKind, int, int}> */
    public static function ranges(): iterable
    {
        yield 'no header' => [null, RangeKind::Whole, 0, -1];
        yield 'first ten bytes' => ['bytes=0-9', RangeKind::Single, 0, 9];
        yield 'from an offset to the end' => ['bytes=990-', RangeKind::Single, 990, 999];
        yield 'the last 10 bytes' => ['bytes=-10', RangeKind::Single, 990, 999];
        yield 'a suffix longer than the file' => ['bytes=-5000', RangeKind::Single, 0, 999];
        yield 'a last byte past the end is clamped' => ['bytes=500-5000', RangeKind::Single, 500, 999];
        yield 'a huge last byte means the end' => ['bytes=1-99999999999999999999999999', RangeKind::Single, 1, 999];
        yield 'the unit is case-insensitive, spaces allowed' => ['Bytes = 1 - 2', RangeKind::Single, 1, 2];
        yield 'a single byte' => ['bytes=999-999', RangeKind::Single, 999, 999];
        yield 'an unknown unit is ignored' => ['items=0-9', RangeKind::Whole, 0, -1];
        yield 'no equals sign: not a bytes range, ignored' => ['bytes', RangeKind::Whole, 0, -1];
        yield 'two ranges: the whole file' => ['bytes=0-9,20-29', RangeKind::Whole, 0, -1];
        yield 'letters' => ['bytes=abc', RangeKind::Unsatisfiable, 0, -1];
        yield 'last before first' => ['bytes=5-1', RangeKind::Unsatisfiable, 0, -1];
        yield 'nothing after the unit' => ['bytes=', RangeKind::Unsatisfiable, 0, -1];
        yield 'a lone dash' => ['bytes=-', RangeKind::Unsatisfiable, 0, -1];
        yield 'a negative number' => ['bytes=-5-10', RangeKind::Unsatisfiable, 0, -1];
        yield 'first byte at the end' => ['bytes=1000-', RangeKind::Unsatisfiable, 0, -1];
        yield 'first byte far past the end' => ['bytes=99999999999999999999999-', RangeKind::Unsatisfiable, 0, -1];
        yield 'an empty suffix' => ['bytes=-0', RangeKind::Unsatisfiable, 0, -1];
        yield 'one malformed among two' => ['bytes=0-1,x', RangeKind::Unsatisfiable, 0, -1];
        yield 'many ranges' => ['bytes=' . \implode(',', \array_map(static fn (int $i): string => $i . '-' . $i, \range(0, 99))), RangeKind::Unsatisfiable, 0, -1];
        yield 'a hex number' => ['bytes=0x10-0x20', RangeKind::Unsatisfiable, 0, -1];
    }

    #[DataProvider('ranges')]
    public function testARangeHeaderAsksForWhatTheRfcSays(?string $header, RangeKind $kind, int $first, int $last): void
    {
        $range = ByteRange::parse($header, 1000);

        self::assertSame($kind, $range->kind);
        if ($kind === RangeKind::Single) {
            self::assertSame([$first, $last], [$range->first, $range->last]);
        }
    }

    public function testAnEmptyFileHasNoSatisfiableRange(): void
    {
        self::assertSame(RangeKind::Unsatisfiable, ByteRange::parse('bytes=0-', 0)->kind);
        self::assertSame(RangeKind::Unsatisfiable, ByteRange::parse('bytes=-1', 0)->kind);
    }

    public function testRandomHeadersNeverThrowAndNeverGiveARangeOutsideTheFile(): void
    {
        \mt_srand(40);
        $alphabet = ['bytes', '=', '-', ',', ' ', '0', '1', '9', '99999999999999999999', 'a', ';', "\t", '-0', 'x'];
        for ($i = 0; $i < 20000; $i++) {
            $header = '';
            for ($n = \mt_rand(0, 12); $n > 0; $n--) {
                $header .= $alphabet[\mt_rand(0, \count($alphabet) - 1)];
            }
            $size = \mt_rand(0, 3) === 0 ? 0 : \mt_rand(1, 5000);
            $range = ByteRange::parse($header, $size);
            if ($range->kind === RangeKind::Single) {
                self::assertTrue($range->first >= 0 && $range->first <= $range->last && $range->last < $size, \sprintf('"%s" on %d bytes gave %d-%d', $header, $size, $range->first, $range->last));
            }
        }
    }
}
