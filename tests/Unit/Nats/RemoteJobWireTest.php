<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Nats;

use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\Nats\RemoteReplyKind;
use Bobbin\Jobs\Nats\RemoteWire;
use Bobbin\Jobs\Wire\EncodedTask;
use PHPUnit\Framework\TestCase;

/** The payloads of the jobs' NATS messages, byte by byte. */
final class RemoteJobWireTest extends TestCase
{
    public function testATaskIsTheLocalTaskBody(): void
    {
        $payload = RemoteWire::task(new EncodedTask('A\B', 'xyz', 1.5, id: '0123456789abcdef'));

        self::assertSame(\bin2hex('T0123456789abcdef' . "\x00\x00\x00\x00\x00\x00\xf8\x3f" . "\x03\x00" . 'A\B' . "\x00" . 'xyz'), \bin2hex($payload));
        $task = RemoteWire::decodeTask($payload);
        self::assertSame(['A\B', 'xyz', 1.5], [$task->class, $task->payload, $task->timeLimit]);
    }

    public function testAliveCarriesThePidAsFourLittleEndianBytesAndWhoSentIt(): void
    {
        $payload = RemoteWire::alive(0x01020304, 'host-a:77');

        self::assertSame(\bin2hex("A\x04\x03\x02\x01host-a:77"), \bin2hex($payload));
        $reply = RemoteWire::decodeReply($payload);
        self::assertSame(RemoteReplyKind::Alive, $reply->kind);
        self::assertSame(0x01020304, $reply->workerPid);
        self::assertSame('host-a:77', $reply->text);
    }

    public function testBusyIsOneByteAndAsksTheCallerToOfferTheTaskAgain(): void
    {
        self::assertSame('B', RemoteWire::busy());
        self::assertSame(RemoteReplyKind::Busy, RemoteWire::decodeReply('B')->kind);
    }

    public function testTimedOutAndRefusedCarryTheirMessage(): void
    {
        self::assertSame('Ktoo slow', RemoteWire::timedOut('too slow'));
        self::assertSame('Eno pool', RemoteWire::refused('no pool'));
        self::assertSame([RemoteReplyKind::TimedOut, 'too slow'], [RemoteWire::decodeReply('Ktoo slow')->kind, RemoteWire::decodeReply('Ktoo slow')->text]);
        self::assertSame([RemoteReplyKind::Refused, 'no pool'], [RemoteWire::decodeReply('Eno pool')->kind, RemoteWire::decodeReply('Eno pool')->text]);
    }

    public function testStartedAndCrashedAreTheLocalFrames(): void
    {
        self::assertSame(RemoteReplyKind::Started, RemoteWire::decodeReply(RemoteWire::started(42))->kind);
        self::assertSame(42, RemoteWire::decodeReply(RemoteWire::started(42))->workerPid);
        self::assertSame('it died', RemoteWire::decodeReply(RemoteWire::crashed('it died'))->text);
    }

    public function testAnAliveWithoutItsPidIsAProtocolError(): void
    {
        $this->expectException(JobProtocolException::class);
        RemoteWire::decodeReply("A\x01\x02");
    }
}
