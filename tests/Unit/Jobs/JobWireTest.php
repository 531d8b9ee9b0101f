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

/** The messages about a task, byte by byte, and the decoder fed whole and one byte at a time. */
final class JobWireTest extends TestCase
{
    private const ID = '0123456789abcdef';

    public function testATaskIsKindIdTimeLimitClassFlagsAndPayload(): void
    {
        $body = JobWire::task(new EncodedTask('A\B', 'xyz', 1.5, id: self::ID));

        $expected = 'T' . self::ID . "\x00\x00\x00\x00\x00\x00\xf8\x3f" . "\x03\x00" . 'A\B' . "\x00" . 'xyz';
        self::assertSame(\bin2hex($expected), \bin2hex($body));
    }

    public function testATaskDecodesToTheSameTask(): void
    {
        $task = JobWire::decodeTask(JobWire::task(new EncodedTask('App\Resize', 'O:10:"App\Resize":0:{}', 0.25, id: self::ID)));

        self::assertSame('App\Resize', $task->class);
        self::assertSame('O:10:"App\Resize":0:{}', $task->payload);
        self::assertSame(0.25, $task->timeLimit);
        self::assertSame(self::ID, $task->id);
        self::assertNull($task->idempotencyKey);
        self::assertSame(0, $task->attempt);
    }

    public function testADurableDeliveryCarriesItsKeyAndAttempt(): void
    {
        $body = JobWire::task((new EncodedTask('A', 'p', 0.0, 'invoice-42', self::ID))->delivery(3));

        self::assertSame(\bin2hex('T' . self::ID . \pack('e', 0.0) . "\x01\x00A\x01\x0a\x00invoice-42\x03\x00\x00\x00p"), \bin2hex($body));
        $task = JobWire::decodeTask($body);
        self::assertSame(['invoice-42', 3, 'p'], [$task->idempotencyKey, $task->attempt, $task->payload]);
    }

    public function testStartedCarriesThePidAsFourLittleEndianBytes(): void
    {
        self::assertSame(\bin2hex("S\x39\x30\x00\x00"), \bin2hex(JobWire::started(12345)));

        $reply = JobWire::decodeReply("S\x39\x30\x00\x00");
        self::assertSame(ReplyKind::Started, $reply->kind);
        self::assertSame(12345, $reply->workerPid);
    }

    public function testAResultCarriesItsRunTimeAndTheSerializedValue(): void
    {
        $body = JobWire::outcome(TaskOutcome::success('i:7;', 2.0));

        self::assertSame(\bin2hex("R\x00\x00\x00\x00\x00\x00\x00\x40i:7;"), \bin2hex($body));
        $reply = JobWire::decodeReply($body);
        self::assertSame(ReplyKind::Outcome, $reply->kind);
        self::assertSame('i:7;', $reply->outcome?->result);
        self::assertSame(2.0, $reply->outcome->runSeconds);
    }

    public function testAFailureCarriesTheRemoteErrorWithItsPreviousOnes(): void
    {
        $error = new RemoteError('App\Bad', 'broken é', 'HY000', '/app/Bad.php', 12, "#0 {main}", new RemoteError('LogicException', 'cause', 0, '/x.php', 3, ''));
        $body = JobWire::outcome(TaskOutcome::failure($error, 0.5));

        self::assertSame('F', $body[0]);
        $decoded = JobWire::decodeReply($body)->outcome?->error;
        self::assertEquals($error, $decoded);
    }

    public function testACrashCarriesTheReasonAsText(): void
    {
        $reply = JobWire::decodeReply(JobWire::crashed('exit() was called'));

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
        $id = \str_repeat("\x00", 16);
        yield 'too short' => ['T12'];
        yield 'not a task' => ['S' . $id . "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"];
        yield 'class longer than the frame' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00abc"];
        yield 'no flags after the class' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00a"];
        yield 'unknown flags' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04"];
        yield 'a durable key longer than the frame' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x09\x00abc"];
        yield 'negative time limit' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\xf0\xbf\x00\x00\x00"];
        yield 'infinite time limit' => ['T' . $id . "\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00"];
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
