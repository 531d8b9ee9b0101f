<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Ipc\Codec;

use Bobbin\Ipc\Codec\SegmentOffer;
use Bobbin\Ipc\Codec\ShmHandshake;
use Bobbin\Ipc\IpcException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The shared-memory handshake's control frames, and the segment layout a reply must describe. */
final class ShmHandshakeTest extends TestCase
{
    private const NAME = '/bobbin-ipc-0123456789abcdef-42-1';

    private static function reply(int $status = 0, int $request = 8192, int $response = 8192, int $segment = 4096 + 16384, string $name = self::NAME, int $op = ShmHandshake::OP_SHM_OPEN, int $flag = 0x80000000): string
    {
        $body = \pack('CCVVVv', $op, $status, $request, $response, $segment, \strlen($name)) . $name;

        return \pack('V', $flag | \strlen($body)) . $body;
    }

    public function testShmOpenWithTheDefaultCapacityIsTheNineBytesOfTheDocs(): void
    {
        self::assertSame("\x05\x00\x00\x80\x01\x00\x00\x00\x00", ShmHandshake::open(0));
        self::assertSame("\x05\x00\x00\x80\x01\x00\x20\x00\x00", ShmHandshake::open(8192));
    }

    public function testShmMappedIsAOneByteControlFrame(): void
    {
        self::assertSame("\x01\x00\x00\x80\x02", ShmHandshake::mapped());
    }

    public function testAReplyOffersTheSegmentItNames(): void
    {
        $offer = ShmHandshake::offer(self::reply(request: 4096, response: 8192, segment: 16384));

        self::assertSame(4096, $offer->requestCapacity);
        self::assertSame(8192, $offer->responseCapacity);
        self::assertSame(16384, $offer->segmentSize);
        self::assertSame(self::NAME, $offer->name);
        self::assertSame(4096 + 4096, $offer->responseRingOffset());
    }

    /** @return iterable<string, array{string, string}> */
    public static function badReplies(): iterable
    {
        yield 'a reply shorter than its fixed part' => ["\x05\x00\x00\x80", 'Bad shared-memory handshake reply'];
        yield 'a name longer than the reply' => [\substr(self::reply(), 0, -3), 'Bad shared-memory handshake reply'];
        yield 'an empty name' => [self::reply(name: ''), 'Bad shared-memory handshake reply'];
        yield 'a status other than 0' => [self::reply(status: 1), 'The IPC daemon refused the shared-memory channel'];
        yield 'another opcode' => [self::reply(op: ShmHandshake::OP_SHM_MAPPED), 'The IPC daemon refused the shared-memory channel'];
        yield 'a plain frame instead of a control frame' => [self::reply(flag: 0), 'The IPC daemon refused the shared-memory channel'];
    }

    #[DataProvider('badReplies')]
    public function testABadReplyIsAnIpcException(string $reply, string $message): void
    {
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage($message);

        ShmHandshake::offer($reply);
    }

    public function testAHeaderThatAgreesWithTheOfferPasses(): void
    {
        $offer = new SegmentOffer(8192, 8192, 4096 + 16384, self::NAME);

        $offer->checkHeader(8192, 8192, 1 << 40, 1 << 40);

        $this->addToAssertionCount(1); // no exception
    }

    /** @return iterable<string, array{SegmentOffer, int, int, string}> offer, the header's capacities, message */
    public static function layoutsThatDoNotFit(): iterable
    {
        yield 'a header that disagrees with the reply' => [
            new SegmentOffer(8192, 8192, 4096 + 16384, '/s'), 1 << 30, 1 << 30,
            'The shared-memory segment /s does not match the handshake (rings of 8192 and 8192 bytes in 20480 bytes; its header says 1073741824 and 1073741824)',
        ];
        yield 'rings that do not fit the segment' => [
            new SegmentOffer(1 << 20, 1 << 20, 8192, '/s'), 1 << 20, 1 << 20,
            'The shared-memory segment /s does not match the handshake (rings of 1048576 and 1048576 bytes in 8192 bytes; its header says 1048576 and 1048576)',
        ];
        yield 'rings that fit only without the header page' => [
            new SegmentOffer(8192, 8192, 16384, '/s'), 8192, 8192,
            'does not match the handshake',
        ];
        yield 'a ring too small for one record' => [new SegmentOffer(8, 8192, 65536, '/s'), 8, 8192, 'does not match the handshake'];
        yield 'a ring that is not 8-aligned' => [new SegmentOffer(8196, 8192, 65536, '/s'), 8196, 8192, 'does not match the handshake'];
    }

    #[DataProvider('layoutsThatDoNotFit')]
    public function testALayoutTheRingsCannotTrustIsAnIpcException(SegmentOffer $offer, int $headerRequest, int $headerResponse, string $message): void
    {
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage($message);

        $offer->checkHeader($headerRequest, $headerResponse, 0, 0);
    }

    /** @return iterable<string, array{int, int}> request tail, response head */
    public static function positionsOutOfRange(): iterable
    {
        // u64 counters of 2^63 and more, which PHP reads as negative numbers and no ring reaches.
        yield 'a request tail' => [-64, 0];
        yield 'a response head' => [0, -8];
    }

    #[DataProvider('positionsOutOfRange')]
    public function testAHeaderWhosePositionsNoRingReachesIsAnIpcException(int $requestTail, int $responseHead): void
    {
        $this->expectException(IpcException::class);
        $this->expectExceptionMessage(\sprintf('The shared-memory segment /s starts with positions out of range (request tail %d, response head %d)', $requestTail, $responseHead));

        (new SegmentOffer(8192, 8192, 4096 + 16384, '/s'))->checkHeader(8192, 8192, $requestTail, $responseHead);
    }
}
