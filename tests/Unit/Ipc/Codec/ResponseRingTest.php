<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc\Codec;

use Bobbin\Ipc\Codec\ResponseRing;
use Bobbin\Ipc\Codec\RingRecord;
use Bobbin\Ipc\IpcException;
use Bobbin\Tests\Support\Ipc\CollectedResponses;
use Bobbin\Tests\Support\Ipc\StringRing;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Reading the response ring: records between the head and the published tail, wrap markers, and
 * every position or length a daemon could get wrong. A wrong one must be an IpcException, never
 * a read outside the ring (StringRing throws on one; in the mapped ring it kills the process).
 */
final class ResponseRingTest extends TestCase
{
    private const CAPACITY = 64;

    /** A record as the daemon writes it: length word 4 + n, id, payload, zeros to a multiple of 8. */
    private static function record(int $id, string $payload): string
    {
        $record = \pack('VV', \strlen($payload) + 4, $id) . $payload;

        return \str_pad($record, (\strlen($record) + 7) & ~7, "\0");
    }

    /**
     * Drains $memory from $head to $tail; returns what was delivered and the violation that
     * stopped it, if any.
     *
     * @return array{list<array{int, string}>, ?IpcException}
     */
    private static function drain(StringRing $memory, int $head, int $tail): array
    {
        $sink = new CollectedResponses();
        try {
            $count = (new ResponseRing(self::CAPACITY))->drain($head, $tail, $memory, $sink);
            self::assertCount($count, $sink->responses, 'drain() counts what it delivered');
        } catch (IpcException $violation) {
            return [$sink->responses, $violation];
        }

        return [$sink->responses, null];
    }

    public function testRecordsUpToTheTailAreDeliveredByTheIdsInThem(): void
    {
        $memory = (new StringRing(self::CAPACITY))
            ->put(0, self::record(7, 'seven') . self::record(3, '') . self::record(9, '12345678'));

        [$answers, $violation] = self::drain($memory, 0, 16 + 8 + 16);

        self::assertNull($violation);
        self::assertSame([[7, 'seven'], [3, ''], [9, '12345678']], $answers);
    }

    public function testNothingIsReadWhenTheTailIsAtTheHead(): void
    {
        [$answers, $violation] = self::drain(new StringRing(self::CAPACITY), 128, 128);

        self::assertNull($violation);
        self::assertSame([], $answers);
    }

    public function testAWrapMarkerSkipsToTheStartOfTheRing(): void
    {
        // Head at 48 in the third lap (position 176): a marker, then a record at offset 0.
        $memory = (new StringRing(self::CAPACITY))
            ->put(48, RingRecord::WRAP_MARKER)
            ->put(0, self::record(5, 'after the wrap'));

        [$answers, $violation] = self::drain($memory, 176, 192 + 24);

        self::assertNull($violation);
        self::assertSame([[5, 'after the wrap']], $answers);
    }

    public function testRecordsThatEndAtTheRingsEndGoOnAtItsStartWithoutAMarker(): void
    {
        $memory = (new StringRing(self::CAPACITY))
            ->put(48, self::record(1, 'end'))
            ->put(0, self::record(2, 'start'));

        [$answers, $violation] = self::drain($memory, 48, 64 + 16);

        self::assertNull($violation);
        self::assertSame([[1, 'end'], [2, 'start']], $answers);
    }

    public function testIdsAreReadAsUnsigned32BitNumbers(): void
    {
        $memory = (new StringRing(self::CAPACITY))->put(0, self::record(0xFFFFFFFF, 'last id'));

        [$answers] = self::drain($memory, 0, 16);

        self::assertSame([[0xFFFFFFFF, 'last id']], $answers);
    }

    public function testATailBehindTheHeadIsAViolation(): void
    {
        // A u64 tail of 2^64 - 16 reads as -16 in PHP: a read of that many bytes would crash.
        [$answers, $violation] = self::drain(new StringRing(self::CAPACITY), 0, -16);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon published a response position outside its ring (tail -16, head 0, capacity 64)', $violation->getMessage());
    }

    public function testATailMoreThanARingAheadIsAViolation(): void
    {
        [, $violation] = self::drain(new StringRing(self::CAPACITY), 8, 8 + self::CAPACITY + 8);

        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon published a response position outside its ring (tail 80, head 8, capacity 64)', $violation->getMessage());
    }

    public function testATailExactlyARingAheadIsAFullRing(): void
    {
        $memory = new StringRing(self::CAPACITY);
        for ($i = 0; $i < 4; $i++) {
            $memory->put($i * 16, self::record($i + 1, "r$i"));
        }

        [$answers, $violation] = self::drain($memory, 0, self::CAPACITY);

        self::assertNull($violation);
        self::assertCount(4, $answers);
    }

    public function testAWrapMarkerThatSkipsPastTheTailIsAViolation(): void
    {
        // One 8-byte record published that is a wrap marker: skipping to the ring's start would
        // put the head past the tail.
        $memory = (new StringRing(self::CAPACITY))->put(0, RingRecord::WRAP_MARKER);

        [$answers, $violation] = self::drain($memory, 0, 8);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon wrote a malformed response record', $violation->getMessage());
    }

    public function testALengthWordUnderFourIsAViolation(): void
    {
        // Three bytes would not even hold the id: the record's payload length would be -1.
        $memory = (new StringRing(self::CAPACITY))->put(0, \pack('VV', 3, 1));

        [$answers, $violation] = self::drain($memory, 0, 8);

        self::assertSame([], $answers);
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon wrote a malformed response record', $violation->getMessage());
    }

    public function testARecordReachingPastTheTailIsAViolation(): void
    {
        $memory = (new StringRing(self::CAPACITY))->put(0, self::record(1, \str_repeat('x', 20)));

        [, $violation] = self::drain($memory, 0, 16);

        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon wrote a malformed response record', $violation->getMessage());
    }

    public function testARecordReachingPastTheRingsEndIsAViolation(): void
    {
        // Length word 44 at offset 48: the record would run to 104 in a 64-byte ring.
        $memory = (new StringRing(self::CAPACITY))->put(48, \pack('VV', 44, 1));

        [, $violation] = self::drain($memory, 48, 48 + 56);

        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon wrote a malformed response record', $violation->getMessage());
    }

    public function testATailInsideARecordHeaderIsATruncatedRecord(): void
    {
        $memory = (new StringRing(self::CAPACITY))->put(0, self::record(1, 'whole') . \pack('V', 12));

        [$answers, $violation] = self::drain($memory, 0, 16 + 4);

        self::assertSame([[1, 'whole']], $answers, 'the records before it are delivered');
        self::assertInstanceOf(IpcException::class, $violation);
        self::assertSame('The IPC daemon wrote a truncated response record', $violation->getMessage());
    }

    public function testTheOnlyRecordIsTakenAsTheSoleAnswer(): void
    {
        $ring = new ResponseRing(self::CAPACITY);
        $record = self::record(4, 'sole');

        self::assertSame(16, $ring->soleOffset(80, 96), 'position 80 is offset 16 in the second lap');
        self::assertSame('sole', $ring->takeSole($record, 4));
    }

    /** @return iterable<string, array{int, int}> head, tail */
    public static function spansThatCannotBeOneRecord(): iterable
    {
        yield 'nothing published' => [16, 16];
        yield 'less than a record' => [16, 24];
        yield 'crossing the ring\'s end' => [48, 80];
        yield 'a tail behind the head' => [32, 0];
        yield 'a tail more than a ring ahead' => [0, 1000];
    }

    #[DataProvider('spansThatCannotBeOneRecord')]
    public function testNothingIsReadForASoleAnswerWhereNoneCanBe(int $head, int $tail): void
    {
        self::assertSame(-1, (new ResponseRing(self::CAPACITY))->soleOffset($head, $tail));
    }

    /** @return iterable<string, array{string, int}> bytes read at soleOffset(), id asked */
    public static function notTheSoleAnswer(): iterable
    {
        yield 'another id' => [self::record(2, 'x'), 1];
        yield 'two records' => [self::record(1, 'x') . self::record(2, 'y'), 1];
        yield 'a wrap marker' => [RingRecord::WRAP_MARKER . \str_repeat("\0", 12), 1];
        yield 'a record reaching past what was read' => [\substr(self::record(1, \str_repeat('x', 20)), 0, 16), 1];
        yield 'a length word under four' => [\pack('VV', 2, 1) . \str_repeat("\0", 8), 1];
        yield 'fewer bytes than a record' => [\pack('VV', 4, 1), 1];
    }

    #[DataProvider('notTheSoleAnswer')]
    public function testAnythingButTheOneRecordAskedForIsLeftToDrain(string $bytes, int $id): void
    {
        self::assertNull((new ResponseRing(self::CAPACITY))->takeSole($bytes, $id));
    }
}
