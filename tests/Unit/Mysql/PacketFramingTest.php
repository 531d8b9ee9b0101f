<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Mysql;

use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Internal\PacketBuffer;
use PHPUnit\Framework\TestCase;

final class PacketFramingTest extends TestCase
{
    public function testAPayloadIsFramedWithItsLengthAndSequenceNumber(): void
    {
        $buffer = new PacketBuffer();

        self::assertSame("\x03\x00\x00\x00abc", $buffer->frame('abc'));
        self::assertSame("\x00\x00\x00\x01", $buffer->frame(''));
    }

    public function testPacketsArriveInPiecesAndComeOutWhole(): void
    {
        $buffer = new PacketBuffer();
        $buffer->append("\x05\x00\x00\x00hel");
        self::assertNull($buffer->next());
        $buffer->append("lo\x01\x00\x00\x01!");

        self::assertSame('hello', $buffer->next());
        self::assertSame('!', $buffer->next());
        self::assertNull($buffer->next());
        self::assertFalse($buffer->hasUnreadBytes());
    }

    public function testAPacketOutOfSequenceIsAProtocolError(): void
    {
        $buffer = new PacketBuffer();
        $buffer->append("\x01\x00\x00\x05x");

        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('sequence 5 where 0 was due');
        $buffer->next();
    }

    public function testEachCommandStartsTheSequenceAgain(): void
    {
        $buffer = new PacketBuffer();
        $buffer->frame('a');
        $buffer->append("\x01\x00\x00\x01b");
        self::assertSame('b', $buffer->next());
        $buffer->resetSequence();

        self::assertSame("\x01\x00\x00\x00c", $buffer->frame('c'));
    }

    public function testAPayloadOfSixteenMegabytesOrMoreIsSplitAndJoinedAgain(): void
    {
        $payload = \str_repeat('x', 0xffffff) . 'tail';
        $writer = new PacketBuffer();
        $framed = $writer->frame($payload);

        self::assertSame("\xff\xff\xff\x00", \substr($framed, 0, 4));
        self::assertSame("\x04\x00\x00\x01tail", \substr($framed, 4 + 0xffffff));
        $reader = new PacketBuffer();
        $reader->append(\substr($framed, 0, 1000));
        self::assertNull($reader->next(), 'not before the last piece is here');
        $reader->append(\substr($framed, 1000));
        self::assertSame($payload, $reader->next());
    }

    public function testAPayloadOfExactlyTheMaximumEndsWithAnEmptyPacket(): void
    {
        $payload = \str_repeat('y', 0xffffff);
        $framed = (new PacketBuffer())->frame($payload);

        self::assertSame(4 + 0xffffff + 4, \strlen($framed));
        self::assertSame("\x00\x00\x00\x01", \substr($framed, -4));
        $reader = new PacketBuffer();
        $reader->append($framed);
        self::assertSame($payload, $reader->next());
    }
}
