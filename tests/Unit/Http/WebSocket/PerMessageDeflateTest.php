<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\WebSocket;

use Bobbin\Http\WebSocket\Frame;
use Bobbin\Http\WebSocket\FrameCodec;
use Bobbin\Http\WebSocket\MessageAssembler;
use Bobbin\Http\WebSocket\Opcode;
use Bobbin\Http\WebSocket\PerMessageDeflate;
use Bobbin\Http\WebSocket\ProtocolViolation;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** RFC 7692 (permessage-deflate) byte by byte; the frames are §7.2.3's examples. */
final class PerMessageDeflateTest extends TestCase
{
    public function testTheServerCompressesHelloAsTheRfcsExample(): void
    {
        $deflate = PerMessageDeflate::negotiate('permessage-deflate');
        self::assertNotNull($deflate);

        self::assertSame("\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00", FrameCodec::encode(Opcode::Text, $deflate->compress('Hello'), true));
        // No context takeover: the same message compresses the same way every time.
        self::assertSame("\xf2\x48\xcd\xc9\xc9\x07\x00", $deflate->compress('Hello'));
    }

    /** @return iterable<string, array{list<string>}> client frames as on the wire, unmasked */
    public static function compressedHellos(): iterable
    {
        yield '§7.2.3.1, one frame' => [["\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00"]];
        yield '§7.2.3.1, two fragments' => [["\x41\x03\xf2\x48\xcd", "\x80\x04\xc9\xc9\x07\x00"]];
        yield '§7.2.3.3, a stored block' => [["\xc1\x0b\x00\x05\x00\xfa\xff\x48\x65\x6c\x6c\x6f\x00"]];
        yield '§7.2.3.4, two deflate blocks' => [["\xc1\x0d\xf2\x48\x05\x00\x00\x00\xff\xff\xca\xc9\xc9\x07\x00"]];
        yield '§7.2.3.5, a final block' => [["\xc1\x08\xf3\x48\xcd\xc9\xc9\x07\x00\x00"]];
    }

    /** @param list<string> $frames */
    #[DataProvider('compressedHellos')]
    public function testTheRfcsCompressedFramesInflateToHello(array $frames): void
    {
        $codec = new FrameCodec(1024, deflate: true);
        $assembler = new MessageAssembler(1024);
        $message = null;
        foreach ($frames as $frame) {
            $buffer = self::masked($frame);
            $decoded = $codec->decode($buffer);
            self::assertNotNull($decoded);
            $message = $assembler->add($decoded);
        }

        self::assertSame('Hello', $message?->data);
        self::assertFalse($message?->binary);
    }

    public function testAnUncompressedMessageStillPassesWhenDeflateWasNegotiated(): void
    {
        $buffer = self::masked("\x81\x05Hello");
        $frame = (new FrameCodec(1024, deflate: true))->decode($buffer);

        self::assertNotNull($frame);
        self::assertFalse($frame->compressed);
        self::assertSame('Hello', (new MessageAssembler(1024))->add($frame)?->data);
    }

    /** @return iterable<string, array{string, bool}> */
    public static function misplacedRsv1(): iterable
    {
        yield 'RSV1 without the extension' => ["\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00", false];
        yield 'RSV1 on a continuation frame' => ["\xc0\x01\x00", true];
        yield 'RSV1 on a ping' => ["\xc9\x00", true];
        yield 'RSV2 with the extension' => ["\xa1\x01a", true];
    }

    #[DataProvider('misplacedRsv1')]
    public function testARsvBitWhereTheExtensionDoesNotAllowItIsAProtocolError(string $frame, bool $negotiated): void
    {
        $buffer = self::masked($frame);
        try {
            (new FrameCodec(1024, $negotiated))->decode($buffer);
            self::fail('no violation reported');
        } catch (ProtocolViolation $violation) {
            self::assertSame(1002, $violation->closeCode, $violation->getMessage());
        }
    }

    public function testADeflateBombIsRefusedWith1009WithoutBeingInflatedWhole(): void
    {
        $bomb = \substr((string) \deflate_add(\deflate_init(\ZLIB_ENCODING_RAW) ?: self::fail(), \str_repeat("\0", 64 << 20), \ZLIB_SYNC_FLUSH), 0, -4);
        self::assertLessThan(100000, \strlen($bomb), '64 MiB of zeros compress to little');
        \memory_reset_peak_usage();
        $before = \memory_get_usage();
        try {
            PerMessageDeflate::inflate($bomb, 65536);
            self::fail('the bomb was inflated');
        } catch (ProtocolViolation $violation) {
            self::assertSame(1009, $violation->closeCode);
        }
        self::assertLessThan(1 << 20, \memory_get_peak_usage() - $before, 'inflated in pieces, stopped near the limit');
    }

    public function testDataThatIsNotDeflateIsInvalidData(): void
    {
        $this->expectExceptionObject(new ProtocolViolation(1007, 'a compressed message that is not valid deflate data'));

        PerMessageDeflate::inflate("\xff\xff\xff\xff", 1024);
    }

    public function testALargeMessageRoundTripsAtTheLimit(): void
    {
        $deflate = PerMessageDeflate::negotiate('permessage-deflate; client_max_window_bits');
        $text = \str_repeat('The quick brown fox jumps over the lazy dog. ', 20000);

        self::assertSame($text, PerMessageDeflate::inflate((string) $deflate?->compress($text), \strlen($text)));
    }

    /** @return iterable<string, array{string, ?string}> */
    public static function offers(): iterable
    {
        $answer = 'permessage-deflate; server_no_context_takeover; client_no_context_takeover';
        yield 'the plain offer' => ['permessage-deflate', $answer];
        yield 'a browser\'s offer' => ['permessage-deflate; client_max_window_bits', $answer];
        yield 'both no-context-takeovers' => ['permessage-deflate; server_no_context_takeover; client_no_context_takeover', $answer];
        yield 'a smaller server window' => ['permessage-deflate; server_max_window_bits=10', $answer . '; server_max_window_bits=10'];
        yield 'a quoted value' => ['permessage-deflate; server_max_window_bits="12"', $answer . '; server_max_window_bits=12'];
        yield 'an 8-bit server window zlib cannot keep, then a plain offer' => ['permessage-deflate; server_max_window_bits=8, permessage-deflate', $answer];
        yield 'another extension first' => ['x-webkit-deflate-frame, permessage-deflate', $answer];
        yield 'an unknown parameter' => ['permessage-deflate; foo', null];
        yield 'a parameter twice' => ['permessage-deflate; client_no_context_takeover; client_no_context_takeover', null];
        yield 'a window out of range' => ['permessage-deflate; client_max_window_bits=16', null];
        yield 'no offer' => ['', null];
    }

    #[DataProvider('offers')]
    public function testTheNegotiationAcceptsTheFirstOfferItCanKeep(string $offers, ?string $answer): void
    {
        self::assertSame($answer, PerMessageDeflate::negotiate($offers)?->responseHeader());
    }

    /** $frame (a client frame written unmasked for reading) with its mask bit set and a mask applied. */
    private static function masked(string $frame): string
    {
        $length = \ord($frame[1]);
        $payload = \substr($frame, 2);
        $mask = "\x37\xfa\x21\x3d";

        return $frame[0] . \chr(0x80 | $length) . $mask . ($length === 0 ? '' : $payload ^ \substr(\str_repeat($mask, ($length >> 2) + 1), 0, $length));
    }
}
