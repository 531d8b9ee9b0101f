<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\Nats\RemoteWire;
use Bobbin\Jobs\RemoteError;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Jobs\Wire\TaskOutcome;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Hostile job frames, as a peer on the job socket or on the jobs' NATS subjects may send them:
 * random bytes, mutated frames, every truncation, lengths up to 2^32 - 1 (the u32 length word),
 * failure JSON nested deep. Each ends in decoded frames or a JobProtocolException, in bounded
 * time and memory. (Whether a decoded payload may be unserialized is item 1's signature, not
 * the framing's.)
 */
final class JobWireFuzzTest extends TestCase
{
    private const MAX_FRAME = 1024 * 1024;

    /** @return list<string> framed, as on the job socket */
    public static function corpus(): array
    {
        $error = new RemoteError('RuntimeException', 'it broke', 7, '/app/Task.php', 12, "#0 {main}", new RemoteError('LogicException', 'cause', 0, '', 0, ''));

        return [
            FrameDecoder::frame(JobWire::task(new EncodedTask('App\Resize', 'O:10:"App\Resize":1:{s:1:"w";i:640;}', 2.5))),
            FrameDecoder::frame(JobWire::task(new EncodedTask('', '', 0.0))),
            FrameDecoder::frame(JobWire::started(4242)),
            FrameDecoder::frame(JobWire::outcome(TaskOutcome::success('a:1:{i:0;s:2:"ok";}', 0.125))),
            FrameDecoder::frame(JobWire::outcome(TaskOutcome::failure($error, 1.0))),
            FrameDecoder::frame(JobWire::crashed('killed by signal 9')),
            FrameDecoder::frame(RemoteWire::alive(77, 'host-a')),
            FrameDecoder::frame(RemoteWire::timedOut('past 5 s')),
            FrameDecoder::frame(RemoteWire::refused('unknown class')),
            FrameDecoder::frame(RemoteWire::busy()),
        ];
    }

    /**
     * Frames cut by FrameDecoder, each decoded as the side that receives it would: a task by the
     * worker, anything else by the caller (RemoteWire covers both JobWire replies and its own).
     *
     * @param list<string> $pieces
     * @return array{list<mixed>, ?\Throwable}
     */
    private static function feed(array $pieces): array
    {
        $decoder = new FrameDecoder(self::MAX_FRAME);
        $decoded = [];
        try {
            foreach ($pieces as $piece) {
                $decoder->append($piece);
                while (($payload = $decoder->next()) !== null) {
                    $decoded[] = ($payload[0] ?? '') === 'T' ? JobWire::decodeTask($payload) : RemoteWire::decodeReply($payload);
                }
            }
        } catch (\Throwable $e) {
            return [$decoded, $e];
        }

        return [$decoded, null];
    }

    public function testRandomBytesGiveFramesOrAJobProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            // A plausible length word first now and then, so the kinds behind it are reached.
            $body = $fuzzer->pick(['T', 'S', 'R', 'F', 'C', 'A', 'K', 'E', 'B', '']) . $fuzzer->randomInput(256);
            $input = $fuzzer->chance(50) ? FrameDecoder::frame($body) : $fuzzer->randomInput();
            $fuzzer->checkStream($input, self::feed(...), JobProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testMutatedFramesGiveFramesOrAJobProtocolException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $valid = $fuzzer->pick($corpus);
            // Mutated inside a well-framed payload (what a signed-but-wrong peer sends), or framing and all.
            $input = $fuzzer->chance(50) ? FrameDecoder::frame($fuzzer->mutate(\substr($valid, 4))) : $fuzzer->mutate($valid . $fuzzer->pick($corpus), $corpus);
            $fuzzer->checkStream($input, self::feed(...), JobProtocolException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfAFrameWaitsAndEveryTruncatedPayloadIsRefusedOrShorter(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (self::corpus() as $valid) {
            self::assertCount(1, $fuzzer->checkStream($valid, self::feed(...), JobProtocolException::class));
            for ($length = 0; $length < \strlen($valid); $length++) {
                $prefix = \substr($valid, 0, $length);
                if ($fuzzer->checkStream($prefix, self::feed(...), JobProtocolException::class) !== []) {
                    $fuzzer->fail($prefix, 'a truncated frame gave a value');
                }
                // The payload cut short but framed as whole: decoded only as what it then says.
                $fuzzer->checkStream(FrameDecoder::frame(\substr($valid, 4, \max(0, $length - 4))), self::feed(...), JobProtocolException::class);
            }
        }
        self::assertGreaterThan(800, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeLengths(): iterable
    {
        yield 'a frame of 2^32 - 1 bytes' => ["\xff\xff\xff\xffT"];
        yield 'a frame of 2^31 bytes' => ["\x00\x00\x00\x80T"];
        yield 'a frame one byte over the limit' => [\pack('V', self::MAX_FRAME + 1) . 'R'];
        yield 'a task naming a class of 65535 bytes' => [FrameDecoder::frame('T' . \pack('ev', 1.0, 0xffff) . 'App')];
        yield 'a task with a negative time limit' => [FrameDecoder::frame('T' . \pack('ev', -1.0, 0) . 'x')];
        yield 'a task with an infinite time limit' => [FrameDecoder::frame('T' . \pack('ev', \INF, 0) . 'x')];
        yield 'a task with a NaN time limit' => [FrameDecoder::frame('T' . \pack('ev', \NAN, 0) . 'x')];
        yield 'a failure whose JSON nests 100000 deep' => [FrameDecoder::frame('F' . \pack('e', 0.0) . \str_repeat('[', 100_000))];
        yield 'a failure whose causes nest 100000 deep' => [FrameDecoder::frame('F' . \pack('e', 0.0) . \str_repeat('{"previous":', 60) . '{}' . \str_repeat('}', 60))];
        yield 'a failure that is JSON but no object' => [FrameDecoder::frame('F' . \pack('e', 0.0) . '"x"')];
        yield 'a failure with fields of the wrong types' => [FrameDecoder::frame('F' . \pack('e', 0.0) . '{"class":[1],"message":{},"code":1.5,"line":"x","previous":"y"}')];
        yield 'a result with a NaN run time' => [FrameDecoder::frame('R' . \pack('e', \NAN) . 'N;')];
    }

    #[DataProvider('hugeLengths')]
    public function testALengthUpTo2Pow32AllocatesNothingBeforeItsBytes(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::feed(...), JobProtocolException::class, 1024 * 1024 + 64 * \strlen($bytes));

        self::assertSame(1, $fuzzer->checked());
    }
}
