<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc\Codec;

use Bobbin\Ipc\Codec\RequestRing;
use Bobbin\Ipc\Codec\RingRecord;
use Bobbin\Ipc\IpcException;
use Bobbin\Tests\Support\Ipc\StringRing;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Writing the request ring: the record format, whole records only, wrap markers, a full ring. */
final class RequestRingTest extends TestCase
{
    private const CAPACITY = 64;

    /** @return iterable<string, array{string, string}> payload, record bytes */
    public static function records(): iterable
    {
        yield 'empty' => ['', "\x04\x00\x00\x00\x2a\x00\x00\x00"];
        yield 'one byte, padded' => ['a', "\x05\x00\x00\x00\x2a\x00\x00\x00a\x00\x00\x00\x00\x00\x00\x00"];
        yield 'eight bytes, no padding' => ['12345678', "\x0c\x00\x00\x00\x2a\x00\x00\x0012345678"];
        yield 'nine bytes, padded' => ['123456789', "\x0d\x00\x00\x00\x2a\x00\x00\x00123456789\x00\x00\x00\x00\x00\x00\x00"];
    }

    #[DataProvider('records')]
    public function testARecordIsLengthWordIdAndPayloadPaddedToEightBytes(string $payload, string $record): void
    {
        self::assertSame($record, (new RequestRing(self::CAPACITY))->record(42, $payload));
        self::assertSame(\strlen($record), RingRecord::sizeOf(\strlen($payload) + 4));
    }

    public function testAPayloadWhoseRecordIsLargerThanTheRingIsRefused(): void
    {
        $ring = new RequestRing(self::CAPACITY);
        self::assertSame(self::CAPACITY, \strlen($ring->record(1, \str_repeat('x', self::CAPACITY - 8))));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('A 57-byte payload does not fit the 64-byte request ring');

        $ring->record(1, \str_repeat('x', self::CAPACITY - 7));
    }

    public function testRecordsGoInAtTheTailAndMoveIt(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY);
        $records = $ring->record(1, 'one') . $ring->record(2, 'two');
        $tail = 8;

        self::assertSame(32, $ring->push($records, $tail, 8, $memory));

        self::assertSame(40, $tail);
        self::assertSame($records, \substr($memory->bytes, 8, 32));
    }

    public function testOnlyTheWholeRecordsThatFitTheFreeSpaceGoIn(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY);
        $records = $ring->record(1, 'a') . $ring->record(2, \str_repeat('b', 16)) . $ring->record(3, 'c');
        $tail = 32;

        // Head at 8: 40 bytes free, 32 of them before the end; the second record (24) does not fit after the first (16).
        self::assertSame(16, $ring->push($records, $tail, 8, $memory));

        self::assertSame(48, $tail);
        self::assertSame(\str_repeat("\xAA", 16), \substr($memory->bytes, 0, 16), 'nothing written at the start');
    }

    public function testARecordThatDoesNotFitBeforeTheEndGoesToTheStartBehindAWrapMarker(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY);
        $record = $ring->record(7, \str_repeat('w', 10)); // 24 bytes; 16 left before the end
        $tail = 48;

        self::assertSame(24, $ring->push($record, $tail, 48, $memory));

        self::assertSame(RingRecord::WRAP_MARKER, \substr($memory->bytes, 48, 4));
        self::assertSame($record, \substr($memory->bytes, 0, 24));
        self::assertSame(64 + 24, $tail, 'the skipped bytes count as produced');
    }

    public function testNoWrapMarkerIsWrittenWhenTheRecordWouldNotFitAtTheStartEither(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY);
        $record = $ring->record(7, \str_repeat('w', 10));
        $tail = 48;

        // Head at 16: the start of the ring up to 16 is free, the record needs 24.
        self::assertSame(0, $ring->push($record, $tail, 16, $memory));

        self::assertSame(48, $tail);
        self::assertSame(\str_repeat("\xAA", self::CAPACITY), $memory->bytes, 'nothing written');
    }

    public function testAFullRingTakesNothing(): void
    {
        $ring = new RequestRing(self::CAPACITY);
        $tail = 64;

        self::assertSame(0, $ring->push($ring->record(1, 'x'), $tail, 0, new StringRing(self::CAPACITY)));
        self::assertSame(64, $tail);
        self::assertSame(-1, $ring->claim(64, 0, 16));
    }

    public function testARecordThatFitsInOnePieceIsClaimedAtTheTailsOffset(): void
    {
        $ring = new RequestRing(self::CAPACITY);

        self::assertSame(8, $ring->claim(72, 40, 24), 'position 72 is offset 8 in the second lap');
        self::assertSame(48, $ring->claim(48, 0, 16), 'up to the end exactly');
    }

    /** @return iterable<string, array{int, int, int}> tail, head, size */
    public static function claimsThatMustWrapOrWait(): iterable
    {
        yield 'not before the end' => [48, 48, 24];
        yield 'not in the free space' => [40, 0, 32];
    }

    #[DataProvider('claimsThatMustWrapOrWait')]
    public function testARecordThatDoesNotFitInOnePieceIsNotClaimed(int $tail, int $head, int $size): void
    {
        self::assertSame(-1, (new RequestRing(self::CAPACITY))->claim($tail, $head, $size));
    }

    /** @return iterable<string, array{int, int}> tail, head */
    public static function headsOutOfBounds(): iterable
    {
        yield 'a head ahead of the tail' => [16, 24];
        yield 'a head more than a ring behind the tail' => [200, 200 - self::CAPACITY - 8];
    }

    #[DataProvider('headsOutOfBounds')]
    public function testAHeadOutsideTheRingIsAViolationWhenPushing(int $tail, int $head): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY);

        try {
            $ring->push($ring->record(1, 'x'), $tail, $head, $memory);
            self::fail('A head out of bounds was accepted');
        } catch (IpcException $e) {
            self::assertSame(\sprintf('The IPC daemon published a request position outside its ring (head %d, tail %d, capacity 64)', $head, $tail), $e->getMessage());
        }
        self::assertSame(\str_repeat("\xAA", self::CAPACITY), $memory->bytes, 'nothing written');
    }

    #[DataProvider('headsOutOfBounds')]
    public function testAHeadOutsideTheRingIsAViolationWhenClaiming(int $tail, int $head): void
    {
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage(\sprintf('The IPC daemon published a request position outside its ring (head %d, tail %d, capacity 64)', $head, $tail));

        (new RequestRing(self::CAPACITY))->claim($tail, $head, 16);
    }
}
