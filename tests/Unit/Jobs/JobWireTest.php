<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\RemoteError;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\ReplyKind;
use Bobbin\Jobs\Wire\TaskOutcome;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The frames of a task's connection, byte by byte, and the decoder fed whole and one byte at a time. */
final class JobWireTest extends TestCase
{
    public function testATaskFrameIsLengthKindTimeLimitClassAndPayload(): void
    {
        $frame = JobWire::taskFrame(new EncodedTask('A\B', 'xyz', 1.5));

        $expected = "\x11\x00\x00\x00" . 'T' . "\x00\x00\x00\x00\x00\x00\xf8\x3f" . "\x03\x00" . 'A\B' . 'xyz';
        self::assertSame(\bin2hex($expected), \bin2hex($frame));
    }

    public function testATaskFrameDecodesToTheSameTask(): void
    {
        $decoder = new FrameDecoder(1024);
        $decoder->append(JobWire::taskFrame(new EncodedTask('App\Resize', 'O:10:"App\Resize":0:{}', 0.25)));

        $task = JobWire::decodeTask((string) $decoder->next());

        self::assertSame('App\Resize', $task->class);
        self::assertSame('O:10:"App\Resize":0:{}', $task->payload);
        self::assertSame(0.25, $task->timeLimit);
    }

    public function testStartedCarriesThePidAsFourLittleEndianBytes(): void
    {
        self::assertSame(\bin2hex("\x05\x00\x00\x00S\x39\x30\x00\x00"), \bin2hex(JobWire::startedFrame(12345)));

        $reply = JobWire::decodeReply("S\x39\x30\x00\x00");
        self::assertSame(ReplyKind::Started, $reply->kind);
        self::assertSame(12345, $reply->workerPid);
    }

    public function testAResultCarriesItsRunTimeAndTheSerializedValue(): void
    {
        $frame = JobWire::outcomeFrame(TaskOutcome::success('i:7;', 2.0));

        self::assertSame(\bin2hex("\x0d\x00\x00\x00R\x00\x00\x00\x00\x00\x00\x00\x40i:7;"), \bin2hex($frame));
        $reply = JobWire::decodeReply(\substr($frame, 4));
        self::assertSame(ReplyKind::Outcome, $reply->kind);
        self::assertSame('i:7;', $reply->outcome?->result);
        self::assertSame(2.0, $reply->outcome->runSeconds);
    }

    public function testAFailureCarriesTheRemoteErrorWithItsPreviousOnes(): void
    {
        $error = new RemoteError('App\Bad', 'broken é', 'HY000', '/app/Bad.php', 12, "#0 {main}", new RemoteError('LogicException', 'cause', 0, '/x.php', 3, ''));
        $frame = JobWire::outcomeFrame(TaskOutcome::failure($error, 0.5));

        self::assertSame('F', $frame[4]);
        $decoded = JobWire::decodeReply(\substr($frame, 4))->outcome?->error;
        self::assertEquals($error, $decoded);
    }

    public function testACrashCarriesTheReasonAsText(): void
    {
        $reply = JobWire::decodeReply(\substr(JobWire::crashedFrame('exit() was called'), 4));

        self::assertSame(ReplyKind::Crashed, $reply->kind);
        self::assertSame('exit() was called', $reply->reason);
    }

    /** @return iterable<string, array{string}> */
    public static function badReplies(): iterable
    {
        yield 'empty' => [''];
        yield 'unknown kind' => ['X123'];
        yield 'short started' => ["S\x01\x00"];
        yield 'long started' => ["S\x01\x00\x00\x00\x00"];
        yield 'result without its run time' => ['R1234'];
        yield 'failure that is not JSON' => ["F\x00\x00\x00\x00\x00\x00\x00\x00{"];
        yield 'failure that is a JSON string' => ["F\x00\x00\x00\x00\x00\x00\x00\x00\"x\""];
        yield 'a task sent back' => ["T\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"];
    }

    #[DataProvider('badReplies')]
    public function testAReplyAgainstTheRulesIsAProtocolError(string $payload): void
    {
        $this->expectException(JobProtocolException::class);
        JobWire::decodeReply($payload);
    }

    /** @return iterable<string, array{string}> */
    public static function badTasks(): iterable
    {
        yield 'too short' => ['T12'];
        yield 'not a task' => ["S\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"];
        yield 'class longer than the frame' => ["T\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00abc"];
        yield 'negative time limit' => ["T\x00\x00\x00\x00\x00\x00\xf0\xbf\x00\x00"];
        yield 'infinite time limit' => ["T\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00"];
    }

    #[DataProvider('badTasks')]
    public function testATaskFrameAgainstTheRulesIsAProtocolError(string $payload): void
    {
        $this->expectException(JobProtocolException::class);
        JobWire::decodeTask($payload);
    }

    public function testTheDecoderGivesWholeFramesWhetherBytesComeAtOnceOrOneByOne(): void
    {
        $stream = FrameDecoder::frame('first') . FrameDecoder::frame('') . FrameDecoder::frame(\str_repeat('z', 300));
        foreach ([[$stream], \str_split($stream)] as $pieces) {
            $decoder = new FrameDecoder(1000);
            $frames = [];
            foreach ($pieces as $piece) {
                $decoder->append($piece);
                while (($frame = $decoder->next()) !== null) {
                    $frames[] = $frame;
                }
            }
            self::assertSame(['first', '', \str_repeat('z', 300)], $frames);
            self::assertFalse($decoder->hasPartialFrame());
        }
    }

    public function testTheDecoderKeepsAPartialFrameUntilItIsWhole(): void
    {
        $decoder = new FrameDecoder(100);
        $decoder->append("\x05\x00\x00\x00abc");

        self::assertNull($decoder->next());
        self::assertTrue($decoder->hasPartialFrame());
        $decoder->append('de');
        self::assertSame('abcde', $decoder->next());
    }

    public function testAFrameLongerThanTheLimitIsRefusedBeforeItsBytesArrive(): void
    {
        $decoder = new FrameDecoder(100);
        $decoder->append("\x65\x00\x00\x00");

        $this->expectException(JobProtocolException::class);
        $this->expectExceptionMessage('A frame of 101 bytes exceeds the limit of 100 bytes');
        $decoder->next();
    }
}
