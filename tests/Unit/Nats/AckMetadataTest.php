<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Nats;

use Bobbin\Nats\JetStream\AckMetadata;
use Bobbin\Nats\JetStream\ConsumerConfig;
use Bobbin\Nats\JetStream\StreamConfig;
use Bobbin\Nats\JetStream\RetentionPolicy;
use PHPUnit\Framework\TestCase;

final class AckMetadataTest extends TestCase
{
    public function testTheShortAckSubjectNamesStreamConsumerAndCounts(): void
    {
        $metadata = AckMetadata::parse('$JS.ACK.JOBS.workers.2.17.9.1700000000123456789.4');

        self::assertEquals(new AckMetadata('JOBS', 'workers', 2, 17, 9, 1700000000123456789, 4), $metadata);
    }

    public function testTheLongFormWithDomainAndAccountHash(): void
    {
        $metadata = AckMetadata::parse('$JS.ACK.hub.ACCHASH.JOBS.workers.1.5.5.1700000000000000000.0.rand0m');

        self::assertNotNull($metadata);
        self::assertSame('JOBS', $metadata->stream);
        self::assertSame(1, $metadata->delivered);
        self::assertSame(5, $metadata->streamSequence);
    }

    public function testAnythingElseIsNoAckSubject(): void
    {
        self::assertNull(AckMetadata::parse('_INBOX.abc.1'));
        self::assertNull(AckMetadata::parse('$JS.ACK.JOBS.workers.x.1.1.1.1'));
        self::assertNull(AckMetadata::parse('$JS.ACK.JOBS'));
    }

    public function testConfigsTravelInNanoseconds(): void
    {
        $stream = (new StreamConfig('JOBS', ['jobs.>'], RetentionPolicy::WorkQueue, duplicateWindow: 60))->toArray();
        $consumer = (new ConsumerConfig('workers', ackWait: 2.5, maxDeliver: 5, filterSubject: 'jobs.durable'))->toArray();

        self::assertSame('workqueue', $stream['retention']);
        self::assertSame(60_000_000_000, $stream['duplicate_window']);
        self::assertSame(2_500_000_000, $consumer['ack_wait']);
        self::assertSame('explicit', $consumer['ack_policy']);
        self::assertSame('jobs.durable', $consumer['filter_subject']);
    }

    public function testNamesThatWouldBreakTheApiSubjectsAreRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new StreamConfig('a.b', ['x']);
    }
}
