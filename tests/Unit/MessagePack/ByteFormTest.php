<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\MessagePack;

use Bobbin\MessagePack\Binary;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Ext;
use Bobbin\MessagePack\Float32;
use Bobbin\MessagePack\Map;
use Bobbin\MessagePack\UInt64;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Every format of the MessagePack specification, at the edges of its ranges: a value encodes
 * to exactly the bytes the specification gives it, and those bytes decode to the same value.
 */
final class ByteFormTest extends TestCase
{
    /** @return iterable<string, array{mixed, string}> value, hex of its shortest form */
    public static function shortestForms(): iterable
    {
        yield 'nil' => [null, 'c0'];
        yield 'false' => [false, 'c2'];
        yield 'true' => [true, 'c3'];
        yield 'positive fixint 0' => [0, '00'];
        yield 'positive fixint 127' => [127, '7f'];
        yield 'uint 8 128' => [128, 'cc80'];
        yield 'uint 8 255' => [255, 'ccff'];
        yield 'uint 16 256' => [256, 'cd0100'];
        yield 'uint 16 65535' => [65535, 'cdffff'];
        yield 'uint 32 65536' => [65536, 'ce00010000'];
        yield 'uint 32 4294967295' => [4294967295, 'ceffffffff'];
        yield 'uint 64 4294967296' => [4294967296, 'cf0000000100000000'];
        yield 'uint 64 PHP_INT_MAX' => [\PHP_INT_MAX, 'cf7fffffffffffffff'];
        yield 'negative fixint -1' => [-1, 'ff'];
        yield 'negative fixint -32' => [-32, 'e0'];
        yield 'int 8 -33' => [-33, 'd0df'];
        yield 'int 8 -128' => [-128, 'd080'];
        yield 'int 16 -129' => [-129, 'd1ff7f'];
        yield 'int 16 -32768' => [-32768, 'd18000'];
        yield 'int 32 -32769' => [-32769, 'd2ffff7fff'];
        yield 'int 32 -2147483648' => [-2147483648, 'd280000000'];
        yield 'int 64 -2147483649' => [-2147483649, 'd3ffffffff7fffffff'];
        yield 'int 64 PHP_INT_MIN' => [\PHP_INT_MIN, 'd38000000000000000'];
        yield 'float 64 1.5' => [1.5, 'cb3ff8000000000000'];
        yield 'float 64 -0.1' => [-0.1, 'cbbfb999999999999a'];
        yield 'fixstr empty' => ['', 'a0'];
        yield 'fixstr "a"' => ['a', 'a161'];
        yield 'fixstr of 31 bytes' => [\str_repeat('x', 31), 'bf' . \str_repeat('78', 31)];
        yield 'str 8 of 32 bytes' => [\str_repeat('x', 32), 'd920' . \str_repeat('78', 32)];
        yield 'str 8 of 255 bytes' => [\str_repeat('x', 255), 'd9ff' . \str_repeat('78', 255)];
        yield 'str 16 of 256 bytes' => [\str_repeat('x', 256), 'da0100' . \str_repeat('78', 256)];
        yield 'str 32 of 65536 bytes' => [\str_repeat('x', 65536), 'db00010000' . \str_repeat('78', 65536)];
        yield 'str holds any bytes' => ["\x00\xff", 'a200ff'];
        yield 'fixarray empty' => [[], '90'];
        yield 'fixarray of 15' => [\array_fill(0, 15, 1), '9f' . \str_repeat('01', 15)];
        yield 'array 16 of 16' => [\array_fill(0, 16, 1), 'dc0010' . \str_repeat('01', 16)];
        yield 'array 32 of 65536' => [\array_fill(0, 65536, 0), 'dd00010000' . \str_repeat('00', 65536)];
        yield 'nested arrays' => [[1, [2, []]], '9201920290'];
        yield 'fixmap' => [['a' => 1, 2 => 'b'], '82a1610102a162'];
        yield 'fixmap of 15' => [self::stringMap(15), '8f' . self::stringMapHex(15)];
        yield 'map 16 of 16' => [self::stringMap(16), 'de0010' . self::stringMapHex(16)];
        yield 'map 32 of 65536' => [self::stringMap(65536), 'df00010000' . self::stringMapHex(65536)];
        yield 'map with a negative key' => [[-1 => null], '81ffc0'];
    }

    #[DataProvider('shortestForms')]
    public function testAValueEncodesToItsShortestFormAndDecodesBack(mixed $value, string $hex): void
    {
        self::assertSame($hex, \bin2hex((new Encoder())->encode($value)));
        self::assertSame($value, (new Decoder())->decode((string) \hex2bin($hex)));
    }

    /** @return iterable<string, array{object, string, mixed}> wrapper, hex, decoded value */
    public static function wrappedForms(): iterable
    {
        yield 'bin 8 empty' => [new Binary(''), 'c400', ''];
        yield 'bin 8' => [new Binary("\x01\x02"), 'c4020102', "\x01\x02"];
        yield 'bin 16' => [new Binary(\str_repeat("\0", 256)), 'c50100' . \str_repeat('00', 256), \str_repeat("\0", 256)];
        yield 'bin 32' => [new Binary(\str_repeat("\0", 65536)), 'c600010000' . \str_repeat('00', 65536), \str_repeat("\0", 65536)];
        yield 'an empty map' => [new Map([]), '80', []];
        yield 'a map of list keys' => [new Map([0 => 'a', 1 => 'b']), '8200a16101a162', ['a', 'b']];
        yield 'float 32' => [new Float32(1.5), 'ca3fc00000', 1.5];
        yield 'uint 64 above PHP_INT_MAX' => [new UInt64('18446744073709551615'), 'cfffffffffffffffff', '18446744073709551615'];
        yield 'uint 64 just above PHP_INT_MAX' => [new UInt64('9223372036854775808'), 'cf8000000000000000', '9223372036854775808'];
        yield 'uint 64 small' => [new UInt64('1'), 'cf0000000000000001', 1];
        yield 'fixext 1' => [new Ext(5, 'a'), 'd40561', new Ext(5, 'a')];
        yield 'fixext 2' => [new Ext(5, 'ab'), 'd5056162', new Ext(5, 'ab')];
        yield 'fixext 4' => [new Ext(-1, 'abcd'), 'd6ff61626364', new Ext(-1, 'abcd')];
        yield 'fixext 8' => [new Ext(127, \str_repeat('a', 8)), 'd77f' . \str_repeat('61', 8), new Ext(127, \str_repeat('a', 8))];
        yield 'fixext 16' => [new Ext(-128, \str_repeat('a', 16)), 'd880' . \str_repeat('61', 16), new Ext(-128, \str_repeat('a', 16))];
        yield 'ext 8 empty' => [new Ext(9, ''), 'c70009', new Ext(9, '')];
        yield 'ext 8 of 3' => [new Ext(9, 'abc'), 'c70309616263', new Ext(9, 'abc')];
        yield 'ext 16' => [new Ext(9, \str_repeat('a', 256)), 'c8010009' . \str_repeat('61', 256), new Ext(9, \str_repeat('a', 256))];
        yield 'ext 32' => [new Ext(9, \str_repeat('a', 65536)), 'c90001000009' . \str_repeat('61', 65536), new Ext(9, \str_repeat('a', 65536))];
    }

    #[DataProvider('wrappedForms')]
    public function testAWrappedValueChoosesItsFormAndDecodesToThePlainValue(object $wrapper, string $hex, mixed $decoded): void
    {
        self::assertSame($hex, \bin2hex((new Encoder())->encode($wrapper)));
        $value = (new Decoder())->decode((string) \hex2bin($hex));
        \is_object($decoded) ? self::assertEquals($decoded, $value) : self::assertSame($decoded, $value);
    }

    public function testLongerFormsThanNeededStillDecode(): void
    {
        $decoder = new Decoder();

        self::assertSame(1, $decoder->decode("\xcf\0\0\0\0\0\0\0\x01"));
        self::assertSame(-1, $decoder->decode("\xd3\xff\xff\xff\xff\xff\xff\xff\xff"));
        self::assertSame(-1, $decoder->decode("\xd0\xff"));
        self::assertSame('a', $decoder->decode("\xdb\0\0\0\x01a"));
        self::assertSame([], $decoder->decode("\xdd\0\0\0\0"));
        self::assertSame(['k' => 1], $decoder->decode("\xdf\0\0\0\x01\xa1k\x01"));
    }

    public function testTheDecoderReadsOneValueFromAnOffsetUpToAnEnd(): void
    {
        $buffer = "xx\x92\x01\x02\xa1a-";
        $offset = 2;

        self::assertSame([1, 2], (new Decoder())->decodeAt($buffer, $offset));
        self::assertSame(5, $offset);
        self::assertSame('a', (new Decoder())->decodeAt($buffer, $offset, 7));
        self::assertSame(7, $offset);
    }

    public function testABackedEnumEncodesAsItsValue(): void
    {
        self::assertSame('a3656e64', \bin2hex((new Encoder())->encode(Direction::End)));
    }

    /** @return array<string, int> */
    private static function stringMap(int $count): array
    {
        $map = [];
        for ($i = 0; $i < $count; $i++) {
            $map['k' . $i] = 0;
        }

        return $map;
    }

    private static function stringMapHex(int $count): string
    {
        $hex = '';
        for ($i = 0; $i < $count; $i++) {
            $key = 'k' . $i;
            $hex .= \dechex(0xA0 | \strlen($key)) . \bin2hex($key) . '00';
        }

        return $hex;
    }
}

enum Direction: string
{
    case End = 'end';
}
