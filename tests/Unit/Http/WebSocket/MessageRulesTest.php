<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\WebSocket;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\WebSocket\CloseCode;
use Bobbin\Http\WebSocket\Frame;
use Bobbin\Http\WebSocket\Handshake;
use Bobbin\Http\WebSocket\MessageAssembler;
use Bobbin\Http\WebSocket\Opcode;
use Bobbin\Http\WebSocket\ProtocolViolation;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Fragmentation (§5.4), UTF-8 (§8.1), close payloads (§5.5.1, §7.4) and the handshake's key (§4.2.2). */
final class MessageRulesTest extends TestCase
{
    public function testFragmentsMakeOneMessageEvenWhenACharacterIsSplitBetweenThem(): void
    {
        $assembler = new MessageAssembler(1024);
        $euro = "\u{20AC}";

        self::assertNull($assembler->add(new Frame(Opcode::Text, 'price: ' . \substr($euro, 0, 1), false)));
        self::assertNull($assembler->add(new Frame(Opcode::Continuation, \substr($euro, 1), false)));
        $message = $assembler->add(new Frame(Opcode::Continuation, '5'));

        self::assertSame('price: ' . $euro . '5', $message?->data);
        self::assertFalse($message->binary);
    }

    public function testBinaryMessagesAreNotCheckedForUtf8(): void
    {
        self::assertSame("\xff\xfe", (new MessageAssembler(16))->add(new Frame(Opcode::Binary, "\xff\xfe"))?->data);
    }

    /** @return iterable<string, array{list<Frame>, int}> */
    public static function violations(): iterable
    {
        yield 'a continuation with nothing to continue' => [[new Frame(Opcode::Continuation, 'a')], 1002];
        yield 'a new message inside a fragmented one' => [[new Frame(Opcode::Text, 'a', false), new Frame(Opcode::Text, 'b')], 1002];
        yield 'invalid UTF-8' => [[new Frame(Opcode::Text, "\xc3\x28")], 1007];
        yield 'a UTF-16 surrogate in UTF-8' => [[new Frame(Opcode::Text, "\xed\xa0\x80")], 1007];
        yield 'a message over the limit in fragments' => [[new Frame(Opcode::Binary, \str_repeat('a', 10), false), new Frame(Opcode::Continuation, \str_repeat('a', 10))], 1009];
    }

    /** @param list<Frame> $frames */
    #[DataProvider('violations')]
    public function testAViolationOfTheMessageRulesCarriesItsCloseCode(array $frames, int $code): void
    {
        $assembler = new MessageAssembler(16);
        try {
            foreach ($frames as $frame) {
                $assembler->add($frame);
            }
            self::fail('no violation reported');
        } catch (ProtocolViolation $violation) {
            self::assertSame($code, $violation->closeCode);
        }
    }

    public function testCloseCodesAnEndpointMaySendAndTheOnesItMayNot(): void
    {
        foreach ([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999] as $code) {
            self::assertTrue(CloseCode::maySend($code), "$code");
        }
        foreach ([0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] as $code) {
            self::assertFalse(CloseCode::maySend($code), "$code");
        }
    }

    public function testAClosePayloadIsACodeAndAUtf8Reason(): void
    {
        self::assertSame(1005, CloseCode::parse(''));
        self::assertSame(1000, CloseCode::parse("\x03\xe8bye"));
        foreach (["\x03" => 1002, "\x03\xed" => 1002, "\x03\xe8\xff" => 1007] as $payload => $code) {
            try {
                CloseCode::parse((string) $payload);
                self::fail('accepted ' . \bin2hex((string) $payload));
            } catch (ProtocolViolation $violation) {
                self::assertSame($code, $violation->closeCode);
            }
        }
    }

    public function testTheAcceptKeyOfTheRfcsExample(): void
    {
        self::assertSame('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=', Handshake::acceptKey('dGhlIHNhbXBsZSBub25jZQ=='));
    }
}
