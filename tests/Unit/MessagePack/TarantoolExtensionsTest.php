<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\MessagePack;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Ext;
use Bobbin\MessagePack\Extension;
use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\Extensions;
use Bobbin\MessagePack\MessagePackException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Tarantool's extension types, byte for byte as its MessagePack documentation lays them out. */
final class TarantoolExtensionsTest extends TestCase
{
    /** @return iterable<string, array{string, string, string}> decimal, its hex, the decoded text */
    public static function decimals(): iterable
    {
        yield 'the documented -12.34' => ['-12.34', 'd6010201234d', '-12.34'];
        yield 'zero' => ['0', 'd501000c', '0'];
        yield 'one' => ['1', 'd501001c', '1'];
        yield 'an even count of digits gets a leading zero nibble' => ['12', 'c7030100012c', '12'];
        yield 'trailing zeros keep their scale' => ['1.50', 'c7030102150c', '1.50'];
        yield 'a fraction below one' => ['-0.05', 'd501025d', '-0.05'];
        yield 'negative zero is zero' => ['-0.0', 'd501010c', '0.0'];
        yield 'zeros after the point' => ['0.007', 'd501037c', '0.007'];
        yield '38 digits' => [\str_repeat('9', 38), 'c71501000' . \str_repeat('9', 38) . 'c', \str_repeat('9', 38)];
    }

    #[DataProvider('decimals')]
    public function testADecimalIsItsScaleThenPackedBcdWithTheSignLast(string $value, string $hex, string $decoded): void
    {
        self::assertSame($hex, \bin2hex((new Encoder())->encode(new Decimal($value))));
        $result = (new Decoder())->decode((string) \hex2bin($hex));
        self::assertInstanceOf(Decimal::class, $result);
        self::assertSame($decoded, $result->value);
    }

    public function testADecimalWithANegativeScaleHasTrailingZeros(): void
    {
        // 12 x 10^2, scale -2 as a negative fixint; sign 0xa is positive too.
        $result = (new Decoder())->decode("\xc7\x03\x01\xfe\x01\x2a");
        self::assertInstanceOf(Decimal::class, $result);
        self::assertSame('1200', $result->value);
    }

    public function testAUuidIsItsSixteenBytesInNetworkOrder(): void
    {
        $uuid = new Uuid('64D22E4D-AC92-4A23-899A-E59F34AF5479');
        $hex = 'd80264d22e4dac924a23899ae59f34af5479';

        self::assertSame($hex, \bin2hex((new Encoder())->encode($uuid)));
        self::assertEquals($uuid, (new Decoder())->decode((string) \hex2bin($hex)));
        self::assertSame('64d22e4d-ac92-4a23-899a-e59f34af5479', (string) $uuid);
    }

    public function testADatetimeIsSecondsThenNanosecondsOffsetAndZoneIndex(): void
    {
        $utc = new \DateTimeImmutable('2022-08-30 12:34:56', new \DateTimeZone('UTC'));
        self::assertSame('d704' . \bin2hex(\pack('P', $utc->getTimestamp())), \bin2hex((new Encoder())->encode($utc)));

        $moscow = new \DateTimeImmutable('2022-08-30 12:34:56.123456', new \DateTimeZone('+03:00'));
        $hex = 'd804' . \bin2hex(\pack('P', $moscow->getTimestamp())) . \bin2hex(\pack('Vvv', 123456000, 180, 0));
        self::assertSame($hex, \bin2hex((new Encoder())->encode($moscow)));

        $decoded = (new Decoder())->decode((string) \hex2bin($hex));
        self::assertInstanceOf(\DateTimeImmutable::class, $decoded);
        self::assertSame('2022-08-30T12:34:56.123456+03:00', $decoded->format('Y-m-d\TH:i:s.uP'));
    }

    public function testADatetimeBeforeTheEpochWithANegativeOffset(): void
    {
        $before = new \DateTimeImmutable('1969-12-31 20:00:00.5', new \DateTimeZone('-05:30'));
        $decoded = (new Decoder())->decode((new Encoder())->encode($before));

        self::assertInstanceOf(\DateTimeImmutable::class, $decoded);
        self::assertSame('1969-12-31T20:00:00.500000-05:30', $decoded->format('Y-m-d\TH:i:s.uP'));
    }

    public function testAnErrorCarriesItsWholeStack(): void
    {
        $error = new BoxError('ClientError', 'Duplicate key exists', 3, 'memtx_tree.cc', 42, 0, ['name' => 'x'], new BoxError('CustomError', 'cause', 0));
        $bytes = (new Encoder())->encode($error);

        self::assertSame("\xc7", $bytes[0]);
        self::assertSame(3, \ord($bytes[2]));
        $decoded = (new Decoder())->decode($bytes);
        self::assertEquals($error, $decoded);
        self::assertInstanceOf(BoxError::class, $decoded);
        self::assertSame('cause', $decoded->previous?->message);
    }

    public function testMoreExtensionsCanBeRegisteredAndUnknownOnesStayRaw(): void
    {
        $point = new class implements Extension {
            public function type(): int
            {
                return 42;
            }

            public function className(): string
            {
                return \ArrayObject::class;
            }

            public function encode(object $value, Encoder $encoder): string
            {
                \assert($value instanceof \ArrayObject);

                return $encoder->encode($value->getArrayCopy());
            }

            public function decode(string $data, Decoder $decoder): \ArrayObject
            {
                $values = $decoder->decode($data);
                if (!\is_array($values)) {
                    throw new MessagePackException('not an array');
                }

                return new \ArrayObject($values);
            }
        };
        $extensions = Extensions::tarantool()->with($point);
        $bytes = (new Encoder($extensions))->encode(['p' => new \ArrayObject([1, 2]), 'd' => new Decimal('1')]);

        self::assertSame('82a170c7032a' . '920102' . 'a164d501001c', \bin2hex($bytes));
        self::assertEquals(['p' => new \ArrayObject([1, 2]), 'd' => new Decimal('1')], (new Decoder($extensions))->decode($bytes));
        self::assertEquals(['p' => new Ext(42, "\x92\x01\x02"), 'd' => new Decimal('1')], (new Decoder())->decode($bytes));
        self::assertEquals(new Ext(1, "\x00\x1c"), (new Decoder(new Extensions()))->decode("\xd5\x01\x00\x1c"));
    }
}
