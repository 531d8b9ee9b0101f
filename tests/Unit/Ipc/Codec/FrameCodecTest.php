<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc\Codec;

use Bobbin\Ipc\Codec\FrameCodec;
use Bobbin\Ipc\IpcException;
use Bobbin\Tests\Support\Ipc\CollectedResponses;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The socket wire's frames, byte by byte, without sockets: each case fed whole and one byte at a time. */
final class FrameCodecTest extends TestCase
{
    private const MAX_FRAME = 64;

    /** @return iterable<string, array{bool}> */
    public static function modes(): iterable
    {
        yield 'whole' => [false];
        yield 'byte by byte' => [true];
    }

    /**
     * Feeds $bytes to $codec (whole or a byte at a time), delivering after each piece, and
     * returns what was delivered and the violation that stopped it, if any.
     *
     * @return array{list<array{int, string}>, ?IpcException}
     */
    private static function feed(FrameCodec $codec, string $bytes, bool $byteByByte, int $sent = 1000): array
    {
        $sink = new CollectedResponses();
        try {
            foreach ($byteByByte ? \str_split($bytes) : [$bytes] as $piece) {
                $codec->append($piece);
                $codec->deliver($sink, $sent);
            }
        } catch (IpcException $violation) {
            return [$sink->responses, $violation];
        }

        return [$sink->responses, null];
    }

    public function testARequestFrameIsItsLengthWordLittleEndianThenThePayload(): void
    {
        self::assertSame("\x03\x00\x00\x00abc", FrameCodec::frame('abc'));
        self::assertSame("\x00\x00\x00\x00", FrameCodec::frame(''));
        self::assertSame("\x2c\x01\x00\x00", \substr(FrameCodec::frame(\str_repeat('x', 300)), 0, 4));
    }

    public function testAControlFrameHasBit31OfItsLengthWordSet(): void
    {
        self::assertSame("\x02\x00\x00\x80\x07\x08", FrameCodec::controlFrame("\x07\x08"));
    }

    #[DataProvider('modes')]
    public function testAWholeFrameIsTheAnswerToRequestOne(bool $byteByByte): void
    {
        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), FrameCodec::frame('hello'), $byteByByte);

        self::assertNull($violation);
        self::assertSame([[1, 'hello']], $answers);
    }

    #[DataProvider('modes')]
    public function testSeveralFramesInOneBufferAreAnswersInWireOrder(bool $byteByByte): void
    {
        $bytes = FrameCodec::frame('one') . FrameCodec::frame('') . FrameCodec::frame('three');

        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), $bytes, $byteByByte);

        self::assertNull($violation);
        self::assertSame([[1, 'one'], [2, ''], [3, 'three']], $answers);
    }

    public function testAFrameInPiecesIsDeliveredOnceItsLastByteArrives(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();
        $frame = FrameCodec::frame('payload');

        foreach ([\substr($frame, 0, 2), \substr($frame, 2, 4), \substr($frame, 6, 4)] as $piece) {
            $codec->append($piece);
            self::assertSame(0, $codec->deliver($sink, 1));
        }
        $codec->append(\substr($frame, 10));

        self::assertSame(1, $codec->deliver($sink, 1));
        self::assertSame([[1, 'payload']], $sink->responses);
        self::assertTrue($codec->isEmpty());
    }

    public function testATruncatedLengthWordWaitsForItsOtherBytes(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();

        $codec->append("\x02\x00\x00");
        self::assertSame(0, $codec->deliver($sink, 1));
        self::assertFalse($codec->isEmpty());

        $codec->append("\x00ok");
        self::assertSame(1, $codec->deliver($sink, 1));
        self::assertSame([[1, 'ok']], $sink->responses);
    }

    public function testAFrameAfterAWholeOneStaysBufferedUntilItIsWholeToo(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();

        $codec->append(FrameCodec::frame('first') . \substr(FrameCodec::frame('second'), 0, 7));
        self::assertSame(1, $codec->deliver($sink, 2));
        $codec->append(\substr(FrameCodec::frame('second'), 7));
        self::assertSame(1, $codec->deliver($sink, 2));

        self::assertSame([[1, 'first'], [2, 'second']], $sink->responses);
    }

    #[DataProvider('modes')]
    public function testAZeroLengthFrameIsAnEmptyAnswer(bool $byteByByte): void
    {
        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), "\x00\x00\x00\x00", $byteByByte);

        self::assertNull($violation);
        self::assertSame([[1, '']], $answers);
    }

    #[DataProvider('modes')]
    public function testAFrameOfExactlyTheLimitIsAnAnswer(bool $byteByByte): void
    {
        $payload = \str_repeat('z', self::MAX_FRAME);

        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), FrameCodec::frame($payload), $byteByByte);

        self::assertNull($violation);
        self::assertSame([[1, $payload]], $answers);
    }

    public function testALengthOverTheLimitIsAViolationAsSoonAsItsLengthWordIsIn(): void
    {
        // No payload follows: the codec must not wait for 65 bytes that should never come.
        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), \pack('V', self::MAX_FRAME + 1), false);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon sent an unexpected frame (length word 0x00000041)', $violation->getMessage());
    }

    #[DataProvider('modes')]
    public function testAControlFrameIsNeverAnAnswer(bool $byteByByte): void
    {
        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), FrameCodec::controlFrame("\x01"), $byteByByte);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon sent an unexpected frame (length word 0x80000001)', $violation->getMessage());
    }

    #[DataProvider('modes')]
    public function testAnAnswerNobodyAskedForIsAViolationAfterTheAnswersBeforeIt(bool $byteByByte): void
    {
        $bytes = FrameCodec::frame('a') . FrameCodec::frame('b') . FrameCodec::frame('stray');

        [$answers, $violation] = self::feed(new FrameCodec(self::MAX_FRAME), $bytes, $byteByByte, sent: 2);

        self::assertSame([[1, 'a'], [2, 'b']], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon sent an unexpected frame (length word 0x00000005)', $violation->getMessage());
    }

    public function testNumbersGoOnAcrossReads(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();

        $codec->append(FrameCodec::frame('1') . FrameCodec::frame('2'));
        $codec->deliver($sink, 3);
        $codec->append(FrameCodec::frame('3'));
        $codec->deliver($sink, 3);

        self::assertSame([[1, '1'], [2, '2'], [3, '3']], $sink->responses);
    }

    public function testExactlyOneWholeFrameIsTakenAsTheSoleAnswerWithoutASink(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);

        self::assertTrue($codec->awaitsOnly(1));
        self::assertSame('answer', $codec->takeSole(FrameCodec::frame('answer')));
        self::assertTrue($codec->isEmpty());
        self::assertFalse($codec->awaitsOnly(1), 'request 1 is answered');
        self::assertTrue($codec->awaitsOnly(2));
    }

    /** @return iterable<string, array{string}> */
    public static function notOneWholeFrame(): iterable
    {
        yield 'a partial length word' => ["\x05\x00"];
        yield 'a partial payload' => ["\x05\x00\x00\x00abc"];
        yield 'two frames' => [FrameCodec::frame('x') . FrameCodec::frame('y')];
        yield 'a control frame' => [FrameCodec::controlFrame('x')];
        yield 'a frame over the limit' => [FrameCodec::frame(\str_repeat('x', self::MAX_FRAME + 1))];
    }

    #[DataProvider('notOneWholeFrame')]
    public function testAnythingButOneWholeFrameIsLeftToTheSinkPath(string $bytes): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);

        self::assertNull($codec->takeSole($bytes));
        self::assertFalse($codec->isEmpty(), 'the bytes stay buffered for deliver()');
        self::assertFalse($codec->awaitsOnly(2));
    }

    public function testTwoFramesRefusedAsSoleAnswerAreDeliveredInOrderLater(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();

        self::assertNull($codec->takeSole(FrameCodec::frame('x') . FrameCodec::frame('y')));
        self::assertSame(2, $codec->deliver($sink, 2));
        self::assertSame([[1, 'x'], [2, 'y']], $sink->responses);
    }

    public function testAFrameBehindBufferedBytesIsNotTakenAsTheSoleAnswer(): void
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $codec->append(FrameCodec::frame('first'));

        self::assertNull($codec->takeSole(FrameCodec::frame('second')));
        $sink = new CollectedResponses();
        $codec->deliver($sink, 2);
        self::assertSame([[1, 'first'], [2, 'second']], $sink->responses);
    }

    public function testAControlFrameIsNeverAnAnswerEvenUnderALimitAbove2GiB(): void
    {
        // Only bit 31 tells a control frame from an answer once the limit no longer does.
        [$answers, $violation] = self::feed(new FrameCodec(1 << 32), FrameCodec::controlFrame("\x01"), false);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
    }
}
