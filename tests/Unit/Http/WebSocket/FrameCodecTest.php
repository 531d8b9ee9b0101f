<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\WebSocket;

use Bobbin\Http\WebSocket\FrameCodec;
use Bobbin\Http\WebSocket\Opcode;
use Bobbin\Http\WebSocket\ProtocolViolation;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** RFC 6455 §5 framing, byte by byte; the examples are §5.7's. */
final class FrameCodecTest extends TestCase
{
    public function testTheRfcsMaskedHelloDecodesToHello(): void
    {
        $buffer = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58" . 'next';
        $frame = (new FrameCodec(1024))->decode($buffer);

        self::assertNotNull($frame);
        self::assertSame(Opcode::Text, $frame->opcode);
        self::assertSame('Hello', $frame->payload);
        self::assertTrue($frame->final);
        self::assertSame('next', $buffer, 'only the frame is taken from the buffer');
    }

    public function testAFrameArrivingByteByByteDecodesOnlyWhenWhole(): void
    {
        $codec = new FrameCodec(1024);
        $wire = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
        $buffer = '';
        for ($i = 0; $i < \strlen($wire) - 1; $i++) {
            $buffer .= $wire[$i];
            self::assertNull($codec->decode($buffer), "after $i bytes");
        }
        $buffer .= $wire[\strlen($wire) - 1];

        self::assertSame('Hello', $codec->decode($buffer)?->payload);
    }

    public function testTheServerEncodesTheRfcsUnmaskedFrames(): void
    {
        self::assertSame("\x81\x05Hello", FrameCodec::encode(Opcode::Text, 'Hello'));
        self::assertSame("\x8a\x05Hello", FrameCodec::encode(Opcode::Pong, 'Hello'));
        self::assertSame("\x82\x7e\x01\x00" . \str_repeat('a', 256), FrameCodec::encode(Opcode::Binary, \str_repeat('a', 256)));
        self::assertSame("\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00" . \str_repeat('a', 65536), FrameCodec::encode(Opcode::Binary, \str_repeat('a', 65536)));
    }

    public function testSixteenAndSixtyFourBitLengthsDecode(): void
    {
        $codec = new FrameCodec(1 << 20);
        foreach ([126, 65535, 65536, 100000] as $length) {
            $payload = \random_bytes($length);
            $buffer = self::masked(0x82, $payload);
            self::assertSame($payload, $codec->decode($buffer)?->payload, "$length bytes");
            self::assertSame('', $buffer);
        }
    }

    public function testAnEmptyMaskedFrameDecodes(): void
    {
        $buffer = "\x89\x80abcd";
        $frame = (new FrameCodec(10))->decode($buffer);

        self::assertSame(Opcode::Ping, $frame?->opcode);
        self::assertSame('', $frame?->payload);
    }

    /** @return iterable<string, array{string, int}> */
    public static function violations(): iterable
    {
        yield 'an unmasked client frame' => ["\x81\x05Hello", 1002];
        yield 'a reserved bit without an extension' => ["\xc1\x80abcd", 1002];
        yield 'reserved data opcode 3' => ["\x83\x80abcd", 1002];
        yield 'reserved control opcode 0xB' => ["\x8b\x80abcd", 1002];
        yield 'a ping of 126 bytes' => ["\x89\xfe\x00\x7eabcd" . \str_repeat('a', 126), 1002];
        yield 'a fragmented ping' => ["\x09\x80abcd", 1002];
        yield 'a 64-bit length with its top bit set' => ["\x82\xff\x80\x00\x00\x00\x00\x00\x00\x01abcd", 1002];
        yield 'a frame over the limit' => ["\x82\xfe\x04\x01abcd" . \str_repeat('a', 1025), 1009];
    }

    #[DataProvider('violations')]
    public function testAViolationIsRefusedWithItsCloseCode(string $wire, int $code): void
    {
        try {
            (new FrameCodec(1024))->decode($wire);
            self::fail('no violation reported');
        } catch (ProtocolViolation $violation) {
            self::assertSame($code, $violation->closeCode, $violation->getMessage());
        }
    }

    private static function masked(int $first, string $payload): string
    {
        $length = \strlen($payload);
        $mask = \random_bytes(4);
        $head = \chr($first) . match (true) {
            $length < 126 => \chr(0x80 | $length),
            $length < 65536 => \chr(0x80 | 126) . \pack('n', $length),
            default => \chr(0x80 | 127) . \pack('J', $length),
        };

        return $head . $mask . ($payload ^ \substr(\str_repeat($mask, ($length >> 2) + 1), 0, $length));
    }
}
