<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Async\Async;
use Bobbin\Nats\Connection;
use Bobbin\Nats\JetStream\ConsumerConfig;
use Bobbin\Nats\JetStream\JetStream;
use Bobbin\Nats\JetStream\JetStreamException;
use Bobbin\Nats\JetStream\RetentionPolicy;
use Bobbin\Nats\JetStream\StorageType;
use Bobbin\Nats\JetStream\StreamConfig;

final class JetStreamTest extends NatsTestCase
{
    private Connection $connection;
    private JetStream $js;
    private string $stream;
    private string $subject;

    protected function setUp(): void
    {
        $this->connection = $this->connect();
        $this->js = $this->connection->jetStream();
        $this->stream = 'T' . \strtoupper(\bin2hex(\random_bytes(4)));
        $this->subject = 'js.' . \strtolower($this->stream);
        $this->js->createStream(new StreamConfig($this->stream, [$this->subject . '.>'], RetentionPolicy::WorkQueue, StorageType::Memory));
    }

    protected function tearDown(): void
    {
        try {
            $this->js->deleteStream($this->stream);
        } finally {
            parent::tearDown();
        }
    }

    public function testAStreamIsCreatedAndUpdatedAndItsInfoRead(): void
    {
        $info = $this->js->streamInfo($this->stream);
        self::assertSame('workqueue', $info['config']['retention'] ?? null);

        $updated = $this->js->ensureStream(new StreamConfig($this->stream, [$this->subject . '.>'], RetentionPolicy::WorkQueue, StorageType::Memory, maxMessages: 500));

        self::assertSame(500, $updated['config']['max_msgs'] ?? null);
    }

    public function testAnUnknownStreamIsAnErrorWithJetStreamsCode(): void
    {
        try {
            $this->js->streamInfo('NOPE' . $this->stream);
            self::fail('an unknown stream was found');
        } catch (JetStreamException $error) {
            self::assertSame(404, $error->status);
            self::assertSame(JetStreamException::STREAM_NOT_FOUND, $error->errorCode);
        }
    }

    public function testPublishIsAcknowledgedAndAMessageIdDeduplicates(): void
    {
        $first = $this->js->publish($this->subject . '.a', 'one', 'job-1');
        $again = $this->js->publish($this->subject . '.a', 'one', 'job-1');
        $other = $this->js->publish($this->subject . '.a', 'two', 'job-2');

        self::assertSame($this->stream, $first->stream);
        self::assertFalse($first->duplicate);
        self::assertTrue($again->duplicate, 'the same id within the window stores nothing new');
        self::assertSame($first->sequence, $again->sequence);
        self::assertSame($first->sequence + 1, $other->sequence);
        self::assertSame(2, $this->js->streamInfo($this->stream)['state']['messages'] ?? null);
    }

    public function testPublishingWhereNoStreamListensIsAClearError(): void
    {
        $this->expectException(JetStreamException::class);
        $this->expectExceptionMessage('No stream takes the subject');
        $this->js->publish('nostream.' . $this->subject, 'x');
    }

    public function testAFetchReturnsABatchAndAcksRemoveItFromAWorkQueue(): void
    {
        for ($i = 0; $i < 5; $i++) {
            $this->js->publish($this->subject . '.work', "job $i");
        }
        $this->js->createConsumer($this->stream, new ConsumerConfig('workers', ackWait: 5));
        $puller = $this->js->pullConsumer($this->stream, 'workers');

        $batch = $puller->fetch(3, 1.0);
        self::assertSame(['job 0', 'job 1', 'job 2'], \array_map(static fn ($m) => $m->payload(), $batch));
        self::assertSame(1, $batch[0]->metadata->delivered);
        self::assertSame(4, $batch[0]->metadata->pending);
        foreach ($batch as $message) {
            $message->ack();
        }
        $batch[2]->isSettled() || self::fail('settled');
        $rest = $puller->fetch(10, 0.5);
        self::assertSame(['job 3', 'job 4'], \array_map(static fn ($m) => $m->payload(), $rest));
        $rest[0]->ackSync(2.0);
        $rest[1]->ackSync(2.0);
        self::assertSame([], $puller->fetch(1, 0.0), 'nothing left: an immediate answer without waiting');
        self::assertSame(0, $this->js->streamInfo($this->stream)['state']['messages'] ?? null, 'acked work is gone');
        $puller->close();
    }

    public function testAFetchWaitsForAMessagePublishedMeanwhile(): void
    {
        $this->js->createConsumer($this->stream, new ConsumerConfig('waiters'));
        $puller = $this->js->pullConsumer($this->stream, 'waiters');
        Async::run(function (): void {
            Async::delay(0.2);
            $this->js->publish($this->subject . '.late', 'late');
        })->ignore();

        $batch = $puller->fetch(1, 3.0);

        self::assertSame('late', $batch[0]->payload() ?? null);
        $batch[0]->ack();
    }

    public function testAnUnackedMessageIsDeliveredAgainAfterTheAckWait(): void
    {
        $this->js->publish($this->subject . '.w', 'forgotten');
        $this->js->createConsumer($this->stream, new ConsumerConfig('forgetful', ackWait: 0.5));
        $puller = $this->js->pullConsumer($this->stream, 'forgetful');

        $first = $puller->fetch(1, 1.0);
        self::assertFalse($first[0]->isRedelivery());
        $again = $puller->fetch(1, 3.0);

        self::assertSame('forgotten', $again[0]->payload());
        self::assertSame(2, $again[0]->metadata->delivered);
        self::assertTrue($again[0]->isRedelivery());
        $again[0]->ack();
    }

    public function testAFetchLongerThanTheAckWaitReturnsARedeliveredMessageOnceAsItsLatestDelivery(): void
    {
        $this->js->publish($this->subject . '.w', 'only one');
        $this->js->createConsumer($this->stream, new ConsumerConfig('slow-fetcher', ackWait: 0.5));
        $puller = $this->js->pullConsumer($this->stream, 'slow-fetcher');

        $batch = $puller->fetch(5, 1.6); // the batch stays open past the ack wait: the server delivers it again meanwhile

        self::assertCount(1, $batch, 'one message, once');
        self::assertSame('only one', $batch[0]->payload());
        self::assertGreaterThan(1, $batch[0]->metadata->delivered, 'the latest delivery, whose ack counts');
        $batch[0]->ack();
        self::assertSame([], $puller->fetch(1, 0.8), 'acked: not delivered again');
    }

    public function testANakWithDelayRedeliversAfterTheDelayAndInProgressHoldsIt(): void
    {
        $this->js->publish($this->subject . '.n', 'retry me');
        $this->js->createConsumer($this->stream, new ConsumerConfig('nakker', ackWait: 0.6));
        $puller = $this->js->pullConsumer($this->stream, 'nakker');

        $message = $puller->fetch(1, 1.0)[0];
        for ($i = 0; $i < 4; $i++) { // 1.2 s of work, twice the ack wait, kept alive
            Async::delay(0.3);
            $message->inProgress();
        }
        self::assertSame([], $puller->fetch(1, 0.0), 'not redelivered while in progress');
        $started = \microtime(true);
        $message->nak(0.5);
        $again = $puller->fetch(1, 3.0);

        self::assertSame('retry me', $again[0]->payload());
        self::assertGreaterThan(0.35, \microtime(true) - $started, 'not before the delay');
        self::assertSame(2, $again[0]->metadata->delivered);
        $again[0]->term();
        self::assertSame([], $puller->fetch(1, 1.0), 'a terminated message never comes back');
    }
}
