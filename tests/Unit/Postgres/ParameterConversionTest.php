<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Postgres;

use Bobbin\Postgres\Bytea;
use Bobbin\Postgres\Internal\ValueConverter;
use Bobbin\Postgres\IsolationLevel;
use PHPUnit\Framework\TestCase;

final class ParameterConversionTest extends TestCase
{
    public function testScalarsBecomeTheirPostgresTextForm(): void
    {
        self::assertSame(
            ['abc', null, '42', 't', 'f', '2.5', '0.1', 'NaN', 'Infinity', '-Infinity'],
            ValueConverter::params(['abc', null, 42, true, false, 2.5, 0.1, \NAN, \INF, -\INF]),
        );
    }

    public function testBinaryDataIsSentInHexForm(): void
    {
        self::assertSame(['\\x00ff41'], ValueConverter::params([new Bytea("\x00\xffA")]));
    }

    public function testArraysAreSentAsJson(): void
    {
        self::assertSame(['{"a":[1,"é/"]}'], ValueConverter::params([['a' => [1, 'é/']]]));
    }

    public function testDatesEnumsAndStringablesAreSentAsText(): void
    {
        $date = new \DateTimeImmutable('2024-05-06 07:08:09.123456', new \DateTimeZone('+02:00'));
        $stringable = new class () implements \Stringable {
            public function __toString(): string
            {
                return 'text';
            }
        };

        self::assertSame(
            ['2024-05-06 07:08:09.123456+02:00', 'SERIALIZABLE', 'text'],
            ValueConverter::params([$date, IsolationLevel::Serializable, $stringable]),
        );
    }

    public function testKeysAreIgnoredSoParametersFollowTheirOrder(): void
    {
        self::assertSame(['1', '2'], ValueConverter::params([5 => 1, 9 => 2]));
    }

    public function testUnsupportedValuesAreRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('stdClass');
        ValueConverter::params([new \stdClass()]);
    }
}
