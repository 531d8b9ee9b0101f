<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\Internal\ColumnDefinition;
use Bobbin\Mysql\Internal\ParameterEncoder;
use Bobbin\Mysql\Internal\Protocol;
use Bobbin\Mysql\Internal\RowDecoder;
use Bobbin\Mysql\Internal\StatementScanner;
use PHPUnit\Framework\TestCase;

/** Rows decoded and parameters encoded byte by byte, without a server. */
final class ValueCodecTest extends TestCase
{
    private static function column(string $name, int $type, int $flags = 0, int $decimals = 0): ColumnDefinition
    {
        return ColumnDefinition::parse(ResponseReaderTest::column($name, $type, $flags, $decimals), false);
    }

    public function testTextValuesAreConvertedByColumnType(): void
    {
        $columns = [
            self::column('i', Protocol::TYPE_LONG),
            self::column('u', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED),
            self::column('f', Protocol::TYPE_DOUBLE),
            self::column('d', Protocol::TYPE_NEWDECIMAL),
            self::column('b', Protocol::TYPE_BIT),
            self::column('t', Protocol::TYPE_DATETIME),
        ];
        $row = "\x02-5" . "\x1418446744073709551615" . "\x031.5" . "\x0412.5" . "\x01\x05" . "\x132024-01-02 03:04:05";

        self::assertSame(
            ['i' => -5, 'u' => '18446744073709551615', 'f' => 1.5, 'd' => '12.5', 'b' => 5, 't' => '2024-01-02 03:04:05'],
            RowDecoder::text($row, $columns, false),
        );
    }

    public function testAnUnsignedBigintUpToPhpIntMaxIsAnInt(): void
    {
        $columns = [self::column('u', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED)];

        self::assertSame(['u' => \PHP_INT_MAX], RowDecoder::text("\x139223372036854775807", $columns, false));
        self::assertSame(['u' => '9223372036854775808'], RowDecoder::text("\x139223372036854775808", $columns, false));
    }

    public function testBinaryValuesAreConvertedLikeTheirTextForms(): void
    {
        $columns = [
            self::column('tiny', Protocol::TYPE_TINY),
            self::column('short', Protocol::TYPE_SHORT),
            self::column('long', Protocol::TYPE_LONG),
            self::column('big', Protocol::TYPE_LONGLONG, Protocol::FLAG_UNSIGNED),
            self::column('float', Protocol::TYPE_FLOAT, 0, 31),
            self::column('double', Protocol::TYPE_DOUBLE),
            self::column('null', Protocol::TYPE_VAR_STRING),
            self::column('date', Protocol::TYPE_DATE),
            self::column('dt', Protocol::TYPE_DATETIME, 0, 3),
            self::column('time', Protocol::TYPE_TIME),
            self::column('text', Protocol::TYPE_VAR_STRING),
        ];
        // NULL bitmap: 11 columns + 2 reserved bits = 2 bytes; column 6 ('null') is bit 8.
        $row = "\x00" . "\x00\x01"
            . "\xff" . \pack('v', 0xfffe) . \pack('V', 0xfffffffd) . "\xff\xff\xff\xff\xff\xff\xff\xff"
            . \pack('g', 1.1) . \pack('e', -2.25)
            . "\x04" . \pack('vCC', 2024, 2, 29)
            . "\x0b" . \pack('vCCCCCV', 2024, 1, 2, 3, 4, 5, 123456)
            . "\x08" . \pack('CVCCC', 1, 1, 2, 3, 4)
            . "\x02hi";

        self::assertSame([
            'tiny' => -1, 'short' => -2, 'long' => -3, 'big' => '18446744073709551615', 'float' => 1.1, 'double' => -2.25,
            'null' => null, 'date' => '2024-02-29', 'dt' => '2024-01-02 03:04:05.123', 'time' => '-26:03:04', 'text' => 'hi',
        ], RowDecoder::binary($row, $columns, false));
    }

    public function testABinaryFloatHasSixSignificantDigitsOrItsColumnsFixedDecimalsAsTheTextProtocolShowsIt(): void
    {
        $columns = [self::column('f', Protocol::TYPE_FLOAT, 0, 31), self::column('f2', Protocol::TYPE_FLOAT, 0, 2)];
        $row = static fn (float $f, float $f2): string => "\x00\x00" . \pack('g', $f) . \pack('g', $f2);

        self::assertSame(['f' => 16777200.0, 'f2' => 96718.78], RowDecoder::binary($row(16777216.0, 96718.78125), $columns, false));
        self::assertSame(['f' => 1.1, 'f2' => -0.5], RowDecoder::binary($row(1.1, -0.5), $columns, false));
        self::assertSame(['f' => 1.4013E-45, 'f2' => 0.0], RowDecoder::binary($row(1.4E-45, 0.001), $columns, false), 'the smallest denormal');
    }

    public function testBit64ValuesAbovePhpIntMaxAreDecimalStringsOverBothProtocols(): void
    {
        $columns = [self::column('b', Protocol::TYPE_BIT)];
        foreach (["\x7f\xff\xff\xff\xff\xff\xff\xff" => \PHP_INT_MAX, "\x80\0\0\0\0\0\0\0" => '9223372036854775808', \str_repeat("\xff", 8) => '18446744073709551615'] as $bits => $value) {
            self::assertSame(['b' => $value], RowDecoder::text("\x08" . $bits, $columns, false));
            self::assertSame(['b' => $value], RowDecoder::binary("\x00\x00\x08" . $bits, $columns, false));
        }
    }

    public function testParametersAreTypedFromTheirPhpValues(): void
    {
        $payload = ParameterEncoder::execute(7, 5, [1, 'ab', null, 2.5, true]);

        self::assertSame(
            \pack('CVCV', 0x17, 7, 0, 1)
            . "\x04"                                   // NULL bitmap: the third parameter
            . "\x01"                                   // types follow
            . "\x08\x00\xfd\x00\x06\x00\x05\x00\x01\x00"
            . \pack('P', 1) . "\x02ab" . \pack('e', 2.5) . "\x01",
            $payload,
        );
    }

    public function testDatesEnumsAndArraysAreSentAsText(): void
    {
        $payload = ParameterEncoder::execute(1, 2, [new \DateTimeImmutable('2024-05-06 07:08:09.5'), ['a' => 1]]);

        self::assertStringEndsWith("\x1a2024-05-06 07:08:09.500000" . "\x07" . '{"a":1}', $payload);
    }

    public function testTheWrongNumberOfParametersIsRefusedBeforeAnythingIsSent(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('takes 2 parameter(s), 1 given');
        ParameterEncoder::execute(1, 2, [1]);
    }

    public function testSeveralStatementsAreToldFromSemicolonsInStringsAndComments(): void
    {
        self::assertTrue(StatementScanner::hasSeveralStatements('SELECT 1; SELECT 2'));
        self::assertFalse(StatementScanner::hasSeveralStatements('SELECT 1;'));
        self::assertFalse(StatementScanner::hasSeveralStatements("SELECT ';' FROM t -- ; nothing"));
        self::assertFalse(StatementScanner::hasSeveralStatements("SELECT 'it''s; fine' /* ; */ ; "));
        self::assertTrue(StatementScanner::hasSeveralStatements("SELECT 1; DROP TABLE t"));
    }
}
