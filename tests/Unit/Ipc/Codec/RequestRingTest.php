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
        self::assertSame($record, (new RequestRing(self::CAPACITY, 0))->record(42, $payload));
        self::assertSame(\strlen($record), RingRecord::sizeOf(\strlen($payload) + 4));
    }

    public function testAPayloadWhoseRecordIsLargerThanTheRingIsRefused(): void
    {
        $ring = new RequestRing(self::CAPACITY, 0);
        self::assertSame(self::CAPACITY, \strlen($ring->record(1, \str_repeat('x', self::CAPACITY - 8))));

        $this->expectException(IpcException::class);
        $this->expectExceptionMessage('A 57-byte payload does not fit the 64-byte request ring');

        $ring->record(1, \str_repeat('x', self::CAPACITY - 7));
    }

    public function testRecordsGoInAtTheTailAndMoveIt(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, 8);
        $records = $ring->record(1, 'one') . $ring->record(2, 'two');

        self::assertSame(32, $ring->push($records, 8, $memory));

        self::assertSame(40, $ring->tail());
        self::assertSame($records, \substr($memory->bytes, 8, 32));
    }

    public function testOnlyTheWholeRecordsThatFitTheFreeSpaceGoIn(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, 32);
        $records = $ring->record(1, 'a') . $ring->record(2, \str_repeat('b', 16)) . $ring->record(3, 'c');

        // Head at 8: 40 bytes free, 32 of them before the end; the second record (24) does not fit after the first (16).
        self::assertSame(16, $ring->push($records, 8, $memory));

        self::assertSame(48, $ring->tail());
        self::assertSame(\str_repeat("\xAA", 16), \substr($memory->bytes, 0, 16), 'nothing written at the start');
    }

    public function testARecordThatDoesNotFitBeforeTheEndGoesToTheStartBehindAWrapMarker(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, 48);
        $record = $ring->record(7, \str_repeat('w', 10)); // 24 bytes; 16 left before the end

        self::assertSame(24, $ring->push($record, 48, $memory));

        self::assertSame(RingRecord::WRAP_MARKER, \substr($memory->bytes, 48, 4));
        self::assertSame($record, \substr($memory->bytes, 0, 24));
        self::assertSame(64 + 24, $ring->tail(), 'the skipped bytes count as produced');
    }

    public function testNoWrapMarkerIsWrittenWhenTheRecordWouldNotFitAtTheStartEither(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, 48);
        $record = $ring->record(7, \str_repeat('w', 10));

        // Head at 16: the start of the ring up to 16 is free, the record needs 24.
        self::assertSame(0, $ring->push($record, 16, $memory));

        self::assertSame(48, $ring->tail());
        self::assertSame(\str_repeat("\xAA", self::CAPACITY), $memory->bytes, 'nothing written');
    }

    public function testAFullRingTakesNothing(): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, 64);

        self::assertSame(0, $ring->push($ring->record(1, 'x'), 0, $memory));
        self::assertSame(64, $ring->tail());
    }

    /** @return iterable<string, array{int, int}> tail, head */
    public static function headsOutOfBounds(): iterable
    {
        yield 'a head ahead of the tail' => [16, 24];
        yield 'a head more than a ring behind the tail' => [200, 200 - self::CAPACITY - 8];
    }

    #[DataProvider('headsOutOfBounds')]
    public function testAHeadOutsideTheRingIsAViolation(int $tail, int $head): void
    {
        $memory = new StringRing(self::CAPACITY);
        $ring = new RequestRing(self::CAPACITY, $tail);

        try {
            $ring->push($ring->record(1, 'x'), $head, $memory);
            self::fail('A head out of bounds was accepted');
        } catch (IpcException $e) {
            self::assertSame(\sprintf('The IPC daemon published a request position outside its ring (head %d, tail %d, capacity 64)', $head, $tail), $e->getMessage());
        }
        self::assertSame(\str_repeat("\xAA", self::CAPACITY), $memory->bytes, 'nothing written');
    }
}
