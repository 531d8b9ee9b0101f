<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\SlowConsumerException;

final class SlowConsumerTest extends NatsTestCase
{
    public function testASubscriptionThatCannotKeepUpDropsTheNewestAndTheRestOfTheConnectionGoesOn(): void
    {
        $subject = self::subject('flood');
        $connection = $this->connect(pendingMessagesLimit: 100);
        $errors = [];
        $connection->onError(static function (NatsException $error) use (&$errors): void {
            $errors[] = $error;
        });
        $slow = $connection->subscribe($subject);
        $fast = $connection->subscribe($subject);
        $control = $connection->subscribe($subject . '.control');
        $publisher = $this->connect();
        for ($i = 0; $i < 1000; $i++) {
            $publisher->publish($subject, (string) $i);
        }
        $publisher->publish($subject . '.control', 'still here');
        $publisher->flush();

        $fastReceived = [];
        while (\count($fastReceived) < 100) {
            $fastReceived[] = (int) $fast->next(5.0)->payload;
        }
        self::assertSame('still here', $control->next(5.0)->payload, 'the connection kept delivering');

        self::assertSame(100, $slow->pending(), 'the slow one holds its limit');
        self::assertSame(\range(0, 99), \array_map(static fn () => (int) $slow->next(1)->payload, \range(1, 100)), 'the oldest were kept');
        self::assertGreaterThan(0, $slow->dropped());
        self::assertSame($slow->dropped() + $fast->dropped(), $connection->statistics()->dropped);
        $slowConsumer = \array_values(\array_filter($errors, static fn (NatsException $e): bool => $e instanceof SlowConsumerException));
        self::assertNotEmpty($slowConsumer, 'reported to the error handler');
        self::assertStringContainsString('cannot keep up', $slowConsumer[0]->getMessage());
        // The fast one is read while the flood arrives, so on a busy machine it may fall behind
        // and catch up again: an episode or two each, never a report per dropped message.
        self::assertLessThanOrEqual(4, \count($slowConsumer), 'once per episode and subscription, not once per message');
        self::assertGreaterThan(10 * \count($slowConsumer), $connection->statistics()->dropped);
        self::assertSame(0, $connection->statistics()->reconnects);
    }

    public function testAReaderThatCatchesUpStopsDropping(): void
    {
        $subject = self::subject('catchup');
        $connection = $this->connect(pendingMessagesLimit: 10);
        $subscription = $connection->subscribe($subject);
        for ($i = 0; $i < 20; $i++) {
            $connection->publish($subject, 'a');
        }
        $connection->flush();
        while ($subscription->tryNext() !== null) {
        }
        $dropped = $subscription->dropped();
        for ($i = 0; $i < 5; $i++) {
            $connection->publish($subject, 'b');
        }
        $connection->flush();

        self::assertSame(10, $dropped);
        self::assertSame($dropped, $subscription->dropped(), 'no new drops once read');
        self::assertSame(5, $subscription->pending());
    }
}
