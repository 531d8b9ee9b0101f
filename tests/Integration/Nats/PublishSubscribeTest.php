<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\TimeoutException;
use Bobbin\Nats\Exception\PayloadTooLargeException;
use Bobbin\Nats\Exception\SubscriptionClosedException;
use Bobbin\Nats\Headers;

final class PublishSubscribeTest extends NatsTestCase
{
    public function testAPublishedMessageReachesASubscriberOnAnotherConnection(): void
    {
        $subject = self::subject('pubsub');
        $subscriber = $this->connect();
        $subscription = $subscriber->subscribe($subject);
        $subscriber->flush();
        $publisher = $this->connect();
        $publisher->publish($subject, "hello\r\nworld\0");

        $message = $subscription->next(2.0);

        self::assertSame($subject, $message->subject);
        self::assertSame("hello\r\nworld\0", $message->payload);
        self::assertNull($message->replyTo);
    }

    public function testWildcardsMatchTokens(): void
    {
        $base = self::subject('wild');
        $connection = $this->connect();
        $one = $connection->subscribe($base . '.*.created');
        $all = $connection->subscribe($base . '.>');
        foreach (['a.created', 'b.created', 'a.deleted', 'a.b.created'] as $suffix) {
            $connection->publish($base . '.' . $suffix, $suffix);
        }
        $connection->flush();

        self::assertSame(['a.created', 'b.created'], [$one->next(1)->payload, $one->next(1)->payload]);
        self::assertNull($one->tryNext());
        self::assertSame(4, $all->pending());
    }

    public function testHeadersTravelWithTheMessage(): void
    {
        $subject = self::subject('headers');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject);
        $connection->publish($subject, 'body', Headers::of(['Trace-Id' => 'abc', 'Multi' => ['1', '2']]));

        $message = $subscription->next(2.0);

        self::assertSame('body', $message->payload);
        self::assertSame('abc', $message->header('Trace-Id'));
        self::assertSame(['Trace-Id' => ['abc'], 'Multi' => ['1', '2']], $message->headers?->all());
    }

    public function testMessagesArriveInTheOrderTheyWerePublished(): void
    {
        $subject = self::subject('order');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject);
        for ($i = 0; $i < 2000; $i++) {
            $connection->publish($subject, (string) $i);
        }
        $received = [];
        for ($i = 0; $i < 2000; $i++) {
            $received[] = (int) $subscription->next(5.0)->payload;
        }

        self::assertSame(\range(0, 1999), $received);
    }

    public function testABurstOfMegabytesPublishedInOneTickArrivesWholeAndInOrder(): void
    {
        // Written while it is built (every 64 KB) and in slices of at most 1 MB: none may be lost, cut or reordered.
        $subject = self::subject('burst');
        $subscriber = $this->connect();
        $subscription = $subscriber->subscribe($subject);
        $subscriber->flush();
        $publisher = $this->connect();
        $expected = [];
        for ($i = 0; $i < 3000; $i++) {
            $expected[] = $payload = \str_pad((string) $i, 1000 + $i % 50, \chr(65 + $i % 26));
            $publisher->publish($subject, $payload);
        }
        $publisher->flush(10.0);
        $received = [];
        for ($i = 0; $i < 3000; $i++) {
            $received[] = $subscription->next(10.0)->payload;
        }

        self::assertSame($expected, $received);
    }

    public function testAQueueGroupGivesEachMessageToExactlyOneMember(): void
    {
        $subject = self::subject('queue');
        $members = [];
        for ($i = 0; $i < 3; $i++) {
            $connection = $this->connect();
            $members[] = $connection->subscribe($subject, 'workers');
            $connection->flush();
        }
        $outsider = $this->connect()->subscribe($subject);
        $publisher = $this->connect();
        for ($i = 0; $i < 300; $i++) {
            $publisher->publish($subject, (string) $i);
        }
        $publisher->flush();
        Async::delay(0.3);

        $seen = [];
        $perMember = [];
        foreach ($members as $index => $member) {
            $perMember[$index] = 0;
            while (($message = $member->tryNext()) !== null) {
                $seen[] = (int) $message->payload;
                $perMember[$index]++;
            }
        }
        \sort($seen);

        self::assertSame(\range(0, 299), $seen, 'every message once, none twice');
        self::assertGreaterThan(0, \min($perMember), 'the work is spread over every member: ' . \json_encode($perMember));
        self::assertSame(300, $outsider->pending(), 'a plain subscriber still gets everything');
    }

    public function testUnsubscribeStopsDeliveryButKeepsWhatWasBuffered(): void
    {
        $subject = self::subject('unsub');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject);
        $connection->publish($subject, 'before');
        $connection->flush();
        $subscription->unsubscribe();
        $connection->publish($subject, 'after');
        $connection->flush();

        self::assertSame('before', $subscription->next(1)->payload);
        $this->expectException(SubscriptionClosedException::class);
        $subscription->next(1);
    }

    public function testADrainedQueueMemberKeepsEveryMessageTheServerGaveItBeforeTheUnsub(): void
    {
        $subject = self::subject('drain');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject, 'workers');
        $connection->flush();
        for ($i = 0; $i < 1000; $i++) {
            $connection->publish($subject, (string) $i);
        }
        // Still on their way back when the UNSUB goes out: a plain unsubscribe() would drop them.
        $subscription->drain(2.0);

        $received = [];
        while (($message = $subscription->tryNext()) !== null) {
            $received[] = (int) $message->payload;
        }
        self::assertSame(\range(0, 999), $received);
        self::assertTrue($subscription->isClosed());
        $connection->publish($subject, 'after');
        $connection->flush();
        self::assertNull($subscription->tryNext());
    }

    public function testAnAutoUnsubscribeEndsAfterThatManyMessages(): void
    {
        $subject = self::subject('auto');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject);
        $subscription->autoUnsubscribe(2);
        for ($i = 0; $i < 5; $i++) {
            $connection->publish($subject, (string) $i);
        }
        $connection->flush();

        self::assertSame(['0', '1'], [$subscription->next(1)->payload, $subscription->next(1)->payload]);
        self::assertTrue($subscription->isClosed());
    }

    public function testNextWaitsNoLongerThanItsTimeout(): void
    {
        $subscription = $this->connect()->subscribe(self::subject('quiet'));
        $started = \microtime(true);
        try {
            $subscription->next(0.2);
            self::fail('a message came from nowhere');
        } catch (TimeoutException) {
        }
        self::assertEqualsWithDelta(0.2, \microtime(true) - $started, 0.15);
    }

    public function testAMegabytePayloadArrivesIntact(): void
    {
        $subject = self::subject('big');
        $connection = $this->connect();
        $subscription = $connection->subscribe($subject);
        $payload = \random_bytes(1 << 20);
        $connection->publish($subject, $payload);

        self::assertSame(\md5($payload), \md5($subscription->next(5.0)->payload));
    }

    public function testAMessageOverTheServersMaxPayloadIsRefusedBeforeSending(): void
    {
        $connection = $this->connect();
        $limit = $connection->serverInfo()['max_payload'];
        self::assertIsInt($limit);

        try {
            $connection->publish(self::subject('huge'), \str_repeat('x', $limit + 1));
            self::fail('an oversized message was sent');
        } catch (PayloadTooLargeException $error) {
            self::assertStringContainsString('max_payload', $error->getMessage());
        }
        $connection->flush();
        self::assertSame(0, $connection->statistics()->reconnects, 'the connection stayed up');
    }

    public function testAPlainScriptPublishesAndReceivesWithoutAServer(): void
    {
        $script = \sprintf(
            '<?php require %s; Bobbin\Async\Async::installLoopDriver(); $c = Bobbin\Nats\Connection::connect(%s); $s = $c->subscribe("script.x"); $c->publish("script.x", "from {main}"); echo $s->next(2)->payload; $c->close();',
            \var_export(\dirname(__DIR__, 3) . '/vendor/autoload.php', true),
            \var_export(\Bobbin\Tests\Support\Nats\EmbeddedNats::url(), true),
        );
        $file = \tempnam(\sys_get_temp_dir(), 'nats-script');
        \file_put_contents($file, $script);
        try {
            $output = \shell_exec('timeout 10 ' . \escapeshellarg(\PHP_BINARY) . ' ' . \escapeshellarg($file) . ' 2>&1');
        } finally {
            \unlink($file);
        }

        self::assertSame('from {main}', $output);
    }
}
