<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Fuzz;

use Bobbin\Ipc\Codec\FrameCodec;
use Bobbin\Ipc\Codec\ResponseRing;
use Bobbin\Ipc\Codec\SegmentOffer;
use Bobbin\Ipc\Codec\ShmHandshake;
use Bobbin\Ipc\IpcException;
use Bobbin\Tests\Support\Fuzz\Fuzzer;
use Bobbin\Tests\Support\Ipc\CollectedResponses;
use Bobbin\Tests\Support\Ipc\StringRing;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A hostile IPC daemon: random and mutated socket frames (fed whole and in pieces, and through
 * the lone caller's takeSole()), handshake replies, and response rings holding anything at any
 * head and tail. Each ends in answers or an IpcException, in bounded time and memory — and never
 * in a read outside the ring (StringRing throws one; the mapped ring would crash the process).
 */
final class IpcFrameFuzzTest extends TestCase
{
    private const MAX_FRAME = 64 * 1024;

    /** @return list<string> socket frames as the daemon answers */
    public static function corpus(): array
    {
        return [FrameCodec::frame(''), FrameCodec::frame('pong'), FrameCodec::frame(\str_repeat("\x00\xff", 100)), FrameCodec::controlFrame("\x01\x00")];
    }

    /**
     * @param list<string> $pieces
     * @return array{list<mixed>, ?\Throwable}
     */
    private static function feed(array $pieces): array
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sink = new CollectedResponses();
        try {
            foreach ($pieces as $piece) {
                $codec->append($piece);
                $codec->deliver($sink, 1_000);
            }
        } catch (\Throwable $e) {
            return [$sink->responses, $e];
        }

        return [$sink->responses, null];
    }

    /** The lone caller's path: one read taken whole when it is exactly one answer, else delivered. */
    private static function takeSoleThenDeliver(string $bytes): mixed
    {
        $codec = new FrameCodec(self::MAX_FRAME);
        $sole = $codec->takeSole($bytes);
        $sink = new CollectedResponses();
        $codec->deliver($sink, 1_000);

        return [$sole, $sink->responses];
    }

    public function testRandomAndMutatedSocketFramesGiveAnswersOrAnIpcException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $corpus = self::corpus();
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $input = $fuzzer->chance(30) ? $fuzzer->randomInput() : $fuzzer->mutate($fuzzer->pick($corpus) . $fuzzer->pick($corpus), $corpus);
            $fuzzer->checkStream($input, self::feed(...), IpcException::class);
            $fuzzer->check($input, self::takeSoleThenDeliver(...), IpcException::class);
        }
        self::assertSame(2 * $fuzzer->cases, $fuzzer->checked());
    }

    public function testEveryTruncationOfAFrameWaitsForMore(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        foreach (\array_slice(self::corpus(), 0, 3) as $valid) {
            for ($length = 0; $length < \strlen($valid); $length++) {
                $prefix = \substr($valid, 0, $length);
                self::assertSame([], $fuzzer->checkStream($prefix, self::feed(...), IpcException::class));
                self::assertSame([null, []], $fuzzer->check($prefix, self::takeSoleThenDeliver(...), IpcException::class));
            }
        }
        self::assertGreaterThan(200, $fuzzer->checked());
    }

    /** @return iterable<string, array{string}> */
    public static function hugeLengths(): iterable
    {
        yield 'a length word of 2^32 - 1' => ["\xff\xff\xff\xffabc"];
        yield 'a length word of 2^31 - 1' => ["\xff\xff\xff\x7fabc"];
        yield 'one byte over the limit' => [\pack('V', self::MAX_FRAME + 1) . 'abc'];
        yield 'at the limit, not arrived' => [\pack('V', self::MAX_FRAME) . 'abc'];
    }

    #[DataProvider('hugeLengths')]
    public function testALengthUpTo2Pow32AllocatesNothingBeforeItsBytes(string $bytes): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $fuzzer->checkStream($bytes, self::feed(...), IpcException::class, 512 * 1024);
        $fuzzer->check($bytes, self::takeSoleThenDeliver(...), IpcException::class, 512 * 1024);

        self::assertSame(2, $fuzzer->checked());
    }

    public function testHandshakeRepliesGiveAnOfferOrAnIpcException(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $valid = \pack('VCCVVVv', FrameCodec::CONTROL_FLAG | 21, ShmHandshake::OP_SHM_OPEN, 0, 4096, 4096, 4096 * 3, 11) . '/bobbin-shm';
        $offer = static function (string $reply) use ($fuzzer): SegmentOffer {
            $offer = ShmHandshake::offer($reply);
            // What the mapped header then says, sometimes the offer's own numbers.
            $field = static fn (int $own): int => $fuzzer->chance(50) ? $own : $fuzzer->pick([0, 8, 16, 4095, 4096, \PHP_INT_MAX, -1, \PHP_INT_MIN]);
            $offer->checkHeader($field($offer->requestCapacity), $field($offer->responseCapacity), $field(0), $field(0));

            return $offer;
        };
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $fuzzer->check($fuzzer->chance(20) ? $fuzzer->randomInput(64) : $fuzzer->mutate($valid), $offer, IpcException::class);
        }
        for ($length = 0; $length < \strlen($valid); $length++) {
            self::assertInstanceOf(IpcException::class, $fuzzer->check(\substr($valid, 0, $length), $offer, IpcException::class));
        }
    }

    public function testAResponseRingHoldingAnythingAtAnyPositionsIsReadInsideTheRingOrRefused(): void
    {
        $fuzzer = new Fuzzer(__METHOD__);
        $record = static fn (int $id, string $payload): string => \str_pad(\pack('VV', \strlen($payload) + 4, $id) . $payload, (\strlen($payload) + 15) & ~7, "\0");
        for ($case = 0; $case < $fuzzer->cases; $case++) {
            $capacity = $fuzzer->pick([16, 64, 256]);
            $contents = '';
            while (\strlen($contents) < $capacity) {
                $contents .= $fuzzer->chance(15) ? "\xff\xff\xff\xff\x00\x00\x00\x00" : $record($fuzzer->int(0, 9), $fuzzer->bytes($fuzzer->int(0, 20)));
            }
            $contents = \substr($fuzzer->chance(70) ? $fuzzer->mutate($contents) . $contents : $fuzzer->bytes($capacity), 0, $capacity);
            $contents = \str_pad($contents, $capacity, "\xaa");
            $head = $fuzzer->pick([0, $fuzzer->int(0, 4 * $capacity) & ~7, $fuzzer->int(0, \PHP_INT_MAX), \PHP_INT_MAX - $capacity, \PHP_INT_MAX]);
            $tail = $fuzzer->pick([$head, $head + $fuzzer->int(-2 * $capacity, 2 * $capacity), \PHP_INT_MAX, \PHP_INT_MIN, $fuzzer->int(\PHP_INT_MIN, \PHP_INT_MAX)]);
            $tail = \is_int($tail) ? $tail : \PHP_INT_MAX; // $head + n past PHP_INT_MAX: what a u64 reads as is covered by PHP_INT_MIN
            $drain = static function (string $bytes) use ($capacity, $head, $tail): mixed {
                $ring = new ResponseRing($capacity);
                $sink = new CollectedResponses();
                $count = $ring->drain($head, $tail, (new StringRing($capacity))->put(0, $bytes), $sink);
                $offset = $ring->soleOffset($head, $tail);
                $sole = $offset < 0 ? null : $ring->takeSole(\substr($bytes, $offset, $tail - $head), 1);

                return [$count, $sink->responses, $sole];
            };
            $fuzzer->check($contents, $drain, IpcException::class);
        }
        self::assertSame($fuzzer->cases, $fuzzer->checked());
    }
}
