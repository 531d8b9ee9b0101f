<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\MessagePack\Binary;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\MessagePack\Ext;
use Bobbin\MessagePack\Extension\BoxError;
use Bobbin\MessagePack\Extension\Decimal;
use Bobbin\MessagePack\Extension\Uuid;
use Bobbin\MessagePack\MessagePackException;
use Bobbin\MessagePack\UInt64;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Hostile MessagePack (what a Tarantool server, or anything posing as one, may send): random
 * bytes, mutated values, every truncation, lengths up to 2^32 - 1, nesting thousands deep.
 * Each ends in a value or a MessagePackException, in bounded time and memory.
 */
final class MessagePackFuzzTest extends TestCase
{
    /** @return list<string> valid values of every type, extensions included */
    public static function corpus(): array
    {
        $encoder = new Encoder();

        return [
            $encoder->encode(null),
            $encoder->encode([true, false, 0, 127, 128, 255, 256, 65535, 65536, 4294967296, -1, -32, -33, -129, -32769, -2147483649, \PHP_INT_MIN]),
            $encoder->encode(new UInt64('18446744073709551615')),
            $encoder->encode([1.5, -0.0, \INF, 1e300]),
            $encoder->encode(['', 'short', \str_repeat('s', 40), \str_repeat('m', 300), \str_repeat('l', 70000)]),
            $encoder->encode(new Binary("\x00\x01\xff")),
            $encoder->encode(['a' => ['b' => ['c' => [1, [2, [3]]]]], 7 => [], 'e' => ['k' => null]]),
            $encoder->encode([new Ext(7, 'abcdefgh'), new Ext(-5, ''), new Ext(9, \str_repeat('x', 300))]),
            $encoder->encode([new Decimal('-12.340'), new Decimal('0.000001'), new Decimal('123456789012345678901234567890.12345678')]),
            $encoder->encode(new Uuid('6e4e8bcb-8d8f-4a6c-9d5c-8a0b0f0a5f1e')),
            $encoder->encode(new BoxError('ClientError', 'Duplicate key', 3, 'box.c', 10, 0, ['name' => 'x'], new BoxError('SystemError', 'cause'))),
            $encoder->encode([new \DateTimeImmutable('2024-02-29 12:34:56.789012+03:00'), new \DateTimeImmutable('@0')]),
        ];
    }

    private static function decode(string $bytes): mixed
    {
        return (new Decoder())->decode($bytes);
    }

    public function testRandomBytesDecodeToAValueOrAMessagePackException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->check($fuzzer->randomInput(), self::decode(...), MessagePackException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedValuesDecodeToAValueOrAMessagePackException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->check($fuzzer->mutate($fuzzer->pick($corpus), $corpus), self::decode(...), MessagePackException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfEveryValidValueIsAMessagePackException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as $valid) {
            $fuzzer->check($valid, self::decode(...), MessagePackException::class);
            // The long strings' middles teach nothing new: every byte of the short ones, the edges of the long.
            $cuts = \strlen($valid) <= 400 ? \range(0, \strlen($valid) - 1) : [...\range(0, 320), ...\range(\strlen($valid) - 64, \strlen($valid) - 1)];
            foreach ($cuts as $length) {
                $outcome = $fuzzer->check(\substr($valid, 0, $length), self::decode(...), MessagePackException::class);
                if (!$outcome instanceof MessagePackException) {
                    $fuzzer->fail(\substr($valid, 0, $length), 'a truncated value decoded');
                }
            }
        }
        self::assertGreaterThan(1000, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeLengths(): iterable
    {
        foreach (['str 32' => "\xdb", 'bin 32' => "\xc6", 'array 32' => "\xdd", 'map 32' => "\xdf", 'ext 32' => "\xc9"] as $name => $type) {
            yield $name . ' claiming 2^32 - 1' => [$type . "\xff\xff\xff\xff" . 'abc'];
        }
        yield 'str 16 claiming 65535' => ["\xda\xff\xff" . 'abc'];
        yield 'array 16 claiming 65535 nils' => ["\xdc\xff\xff" . \str_repeat("\xc0", 100)];
        yield 'map 16 claiming 65535 pairs' => ["\xde\xff\xff" . \str_repeat("\x01\xc0", 100)];
    }

    #[DataProvider('hugeLengths')]
    public function testALengthClaimingMoreThanArrivedAllocatesNothingForIt(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $outcome = $fuzzer->check($bytes, self::decode(...), MessagePackException::class, 1024 * 1024);

        self::assertInstanceOf(MessagePackException::class, $outcome);
        self::assertStringContainsString('Truncated', $outcome->getMessage());
    }

    public function testNestingPastTheLimitIsAClearErrorAtAnyDepth(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (["\x91", "\x81\x01", "\xdc\x00\x01", "\xde\x00\x01\xa1k"] as $opener) {
            foreach ([Decoder::MAX_DEPTH + 1, 5_000, 200_000] as $depth) {
                $outcome = $fuzzer->check(\str_repeat($opener, $depth) . "\xc0", self::decode(...), MessagePackException::class);
                self::assertInstanceOf(MessagePackException::class, $outcome);
                self::assertStringContainsString(\sprintf('nests deeper than %d levels', Decoder::MAX_DEPTH), $outcome->getMessage());
            }
        }
    }

    public function testNestingUpToTheLimitDecodes(): void
    {
        $value = self::decode(\str_repeat("\x91", Decoder::MAX_DEPTH) . "\x2a");

        for ($depth = 0; $depth < Decoder::MAX_DEPTH; $depth++) {
            self::assertIsArray($value);
            $value = $value[0];
        }
        self::assertSame(42, $value);
    }

    public function testNestingThroughErrorExtensionsCountsToo(): void
    {
        // An error extension decodes its payload with the same decoder: a chain of them must not escape the bound.
        $bytes = "\xc0";
        for ($level = 0; $level < 40; $level++) {
            $bytes = Encoder::ext(3, "\x81\x00\x91\x81\x06" . \str_repeat("\x91", 20) . $bytes);
        }

        $outcome = (new Fuzzer(__METHOD__))->check($bytes, self::decode(...), MessagePackException::class);

        self::assertInstanceOf(MessagePackException::class, $outcome);
    }

    /** @return iterable<string, array{string}> */
    public static function hostileExtensions(): iterable
    {
        $decimal = static fn (string $scale, string $digits): string => Encoder::ext(1, $scale . $digits);
        yield 'decimal scale 2^31' => [$decimal("\xce\x80\x00\x00\x00", "\x1c")];
        yield 'decimal scale -2^31' => [$decimal("\xd2\x80\x00\x00\x00", "\x1c")];
        yield 'decimal scale 2^63 - 1' => [$decimal("\xcf\x7f\xff\xff\xff\xff\xff\xff\xff", "\x1c")];
        yield 'decimal scale -2^63' => [$decimal("\xd3\x80\x00\x00\x00\x00\x00\x00\x00", "\x1c")];
        yield 'decimal scale 2^64 - 1' => [$decimal("\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\x1c")];
        yield 'decimal scale a string' => [$decimal("\xa1x", "\x1c")];
        yield 'decimal digits not BCD' => [$decimal("\x00", "\xab\xcd")];
        yield 'datetime at the largest second' => [Encoder::ext(4, \pack('P', \PHP_INT_MAX))];
        yield 'datetime at the smallest second' => [Encoder::ext(4, \pack('P', \PHP_INT_MIN))];
        yield 'datetime with the largest offset' => [Encoder::ext(4, \pack('PVvv', 0, 0, 0x7fff, 0))];
        yield 'datetime with the smallest offset' => [Encoder::ext(4, \pack('PVvv', 0, 0, 0x8000, 0))];
        yield 'datetime with too many nanoseconds' => [Encoder::ext(4, \pack('PVvv', 0, 0xffffffff, 0, 0))];
        yield 'datetime past year 9999 with an offset' => [Encoder::ext(4, \pack('PVvv', 300_000_000_000, 5, 600, 0))];
        yield 'uuid of 15 bytes' => [Encoder::ext(2, \str_repeat("\x01", 15))];
        yield 'error that is not a map' => [Encoder::ext(3, "\x01")];
        yield 'error stack of scalars' => [Encoder::ext(3, "\x81\x00\x92\x01\x02")];
        yield 'error with trailing bytes' => [Encoder::ext(3, "\x81\x00\x91\x80\xc0")];
    }

    #[DataProvider('hostileExtensions')]
    public function testAHostileExtensionPayloadIsAValueOrAMessagePackException(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->check($bytes, self::decode(...), MessagePackException::class, 1024 * 1024);

        self::assertSame(1, $fuzzer->checked());
    }

    public function testMutatedExtensionPayloadsDecodeToAValueOrAMessagePackException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $payloads = [
            [1, "\x02\x12\x34\x5c"], [1, "\xd0\xfe\x1c"], [2, \str_repeat("\x5a", 16)],
            [3, "\x81\x00\x91\x86\x00\xa1T\x01\xa1f\x02\x05\x03\xa1m\x04\x00\x05\x07"],
            [4, \pack('P', 1_700_000_000)], [4, \pack('PVvv', 1_700_000_000, 123_456_789, 180, 0)],
        ];
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            [$type, $payload] = $fuzzer->pick($payloads);
            $fuzzer->check(Encoder::ext($type, $fuzzer->mutate($payload)), self::decode(...), MessagePackException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }
}
