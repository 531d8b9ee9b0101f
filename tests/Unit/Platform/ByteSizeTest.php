<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Platform;

use Bobbin\Platform\ByteSize;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ByteSizeTest extends TestCase
{
    /** @return iterable<string, array{string, int}> */
    public static function sizes(): iterable
    {
        yield 'plain bytes' => ['134217728', 134217728];
        yield 'kibibytes' => ['512K', 524288];
        yield 'mebibytes, lower case' => ['128m', 134217728];
        yield 'gibibytes with a B' => ['1GB', 1073741824];
        yield 'spaces around' => [' 64 M ', 67108864];
        yield 'zero' => ['0', 0];
    }

    #[DataProvider('sizes')]
    public function testItReadsByteCountsAsOperatorsWriteThem(string $value, int $bytes): void
    {
        self::assertSame($bytes, ByteSize::parse($value));
    }

    /** @return iterable<string, array{string}> */
    public static function nonsense(): iterable
    {
        yield 'a word' => ['lots'];
        yield 'a negative number' => ['-1M'];
        yield 'a fraction' => ['1.5G'];
        yield 'an unknown unit' => ['3T'];
        yield 'empty' => [''];
    }

    #[DataProvider('nonsense')]
    public function testAnythingElseIsRejectedWithAnExample(string $value): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('128M');

        ByteSize::parse($value);
    }

    public function testItFormatsForHumans(): void
    {
        self::assertSame('512B', ByteSize::format(512));
        self::assertSame('4.0M', ByteSize::format(4194304));
        self::assertSame('1.5G', ByteSize::format(1610612736));
    }
}
