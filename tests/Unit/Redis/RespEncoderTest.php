<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Redis;

use Bobbin\Redis\Internal\RespEncoder;
use PHPUnit\Framework\TestCase;

final class RespEncoderTest extends TestCase
{
    public function testACommandIsAnArrayOfBulkStrings(): void
    {
        self::assertSame("*3\r\n\$3\r\nSET\r\n\$3\r\nkey\r\n\$5\r\nvalue\r\n", RespEncoder::command(['SET', 'key', 'value']));
    }

    public function testBinaryArgumentsGoByteForByte(): void
    {
        self::assertSame("*2\r\n\$3\r\nGET\r\n\$4\r\n\r\n\0\xff\r\n", RespEncoder::command(['GET', "\r\n\0\xff"]));
        self::assertSame("*2\r\n\$4\r\nECHO\r\n\$0\r\n\r\n", RespEncoder::command(['ECHO', '']));
    }

    public function testNumbersGoInTheirShortestExactForm(): void
    {
        self::assertSame('42', RespEncoder::toBytes(42));
        self::assertSame('-7', RespEncoder::toBytes(-7));
        self::assertSame('0.1', RespEncoder::toBytes(0.1));
        self::assertSame('0.30000000000000004', RespEncoder::toBytes(0.1 + 0.2));
        self::assertSame('3', RespEncoder::toBytes(3.0));
        self::assertSame('1.0E+25', RespEncoder::toBytes(1e25));
        self::assertSame('inf', RespEncoder::toBytes(\INF));
        self::assertSame('-inf', RespEncoder::toBytes(-\INF));
    }

    public function testStringableObjectsGoAsTheirString(): void
    {
        $value = new class () implements \Stringable {
            public function __toString(): string
            {
                return 'text';
            }
        };

        self::assertSame("*1\r\n\$4\r\ntext\r\n", RespEncoder::command([$value]));
    }

    public function testValuesRedisHasNoFormForAreRefused(): void
    {
        foreach ([true, null, [1], \NAN] as $value) {
            try {
                RespEncoder::command(['SET', 'k', $value]);
                self::fail('accepted ' . \get_debug_type($value));
            } catch (\ValueError) {
                self::addToAssertionCount(1);
            }
        }
    }
}
