<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Nats\Connection;
use Bobbin\Nats\Exception\NoRespondersException;
use Bobbin\Nats\Exception\RequestTimeoutException;
use Bobbin\Nats\Headers;
use Bobbin\Nats\Subscription;

final class RequestReplyTest extends NatsTestCase
{
    /** A service answering each request with its payload upper-cased, in a fiber of its own. */
    private function serve(Connection $connection, Subscription $requests, float $delay = 0.0): void
    {
        Async::run(static function () use ($connection, $requests, $delay): void {
            try {
                while (true) {
                    $request = $requests->next();
                    if ($delay > 0) {
                        Async::delay($delay);
                    }
                    $connection->publish((string) $request->replyTo, \strtoupper($request->payload), Headers::of(['Served-By' => 'test']));
                }
            } catch (\Throwable) {
                // the connection closed at the end of the test
            }
        })->ignore();
    }

    public function testARequestGetsItsReply(): void
    {
        $subject = self::subject('echo');
        $service = $this->connect();
        $this->serve($service, $service->subscribe($subject, 'svc'));
        $service->flush();

        $reply = $this->connect()->request($subject, 'ping', 2.0);

        self::assertSame('PING', $reply->payload);
        self::assertSame('test', $reply->header('Served-By'));
    }

    public function testManyConcurrentRequestsEachGetTheirOwnReplyOverOneInbox(): void
    {
        $subject = self::subject('many');
        $service = $this->connect();
        $this->serve($service, $service->subscribe($subject));
        $service->flush();
        $client = $this->connect();

        $futures = [];
        for ($i = 0; $i < 200; $i++) {
            $futures[$i] = Async::run(static fn (): string => $client->request($subject, "r$i", 5.0)->payload);
        }
        $replies = Future::awaitAll($futures);

        self::assertSame(\array_map(static fn (int $i): string => "R$i", \range(0, 199)), $replies);
        self::assertSame(0, $client->statistics()->awaitingReplies, 'nothing left waiting');
    }

    public function testARequestNobodyAnswersTimesOutAtItsTimeout(): void
    {
        $subject = self::subject('silent');
        $silent = $this->connect();
        $silent->subscribe($subject);
        $silent->flush();
        $started = \microtime(true);

        try {
            $this->connect()->request($subject, 'anyone?', 0.3);
            self::fail('a reply came from nowhere');
        } catch (RequestTimeoutException $error) {
            self::assertStringContainsString('within 0.3 s', $error->getMessage());
        }
        self::assertEqualsWithDelta(0.3, \microtime(true) - $started, 0.2);
    }

    public function testARequestToASubjectNobodySubscribesFailsAtOnce(): void
    {
        $started = \microtime(true);
        try {
            $this->connect()->request(self::subject('void'), 'x', 5.0);
            self::fail('a reply came from nowhere');
        } catch (NoRespondersException) {
        }
        self::assertLessThan(1.0, \microtime(true) - $started, 'the server says so at once, no timeout');
    }

    public function testTheCallersCancellationEndsTheWait(): void
    {
        $subject = self::subject('slow');
        $service = $this->connect();
        $this->serve($service, $service->subscribe($subject), 2.0);
        $service->flush();
        $client = $this->connect();
        $source = new CancellationSource();
        Async::run(static function () use ($source): void {
            Async::delay(0.1);
            $source->cancel();
        })->ignore();

        try {
            $client->request($subject, 'x', 10.0, null, $source->token());
            self::fail('The request must be cancelled');
        } catch (CancelledException $e) {
            // Published before the cancel: its responder handles it all the same, so unknown —
            // and still the cancellation a `catch (CancelledException)` always saw.
            self::assertInstanceOf(OutcomeUnknown::class, $e);
            self::assertSame('The operation was cancelled', $e->getMessage());
            self::assertInstanceOf(CancelledException::class, $e->getPrevious());
        }
        self::assertSame(0, $client->statistics()->awaitingReplies);
    }

    public function testARequestCancelledBeforeItWasPublishedIsThePlainCancellation(): void
    {
        $subject = self::subject('unsent');
        $service = $this->connect();
        $service->subscribe($subject);
        $service->flush();
        $client = $this->connect();
        $client->flush(); // connected and idle: the request's PUB waits for the end of the tick
        $source = new CancellationSource();
        $request = Async::run(static fn () => $client->request($subject, 'x', 10.0, null, $source->token()));
        $source->cancel(); // in the same tick: its PUB never left

        try {
            $request->await();
            self::fail('The request must be cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(OutcomeUnknown::class, $e, 'Never sent: not done');
        }
        $already = new CancellationSource();
        $already->cancel();
        try {
            $client->request($subject, 'x', 10.0, null, $already->token());
            self::fail('The request must be cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(OutcomeUnknown::class, $e, 'Never sent: not done');
        }
    }

    public function testASubscriptionWaitCancelledIsThePlainCancellation(): void
    {
        $subscription = $this->connect()->subscribe(self::subject('quiet'));
        $source = new CancellationSource();
        Async::run(static function () use ($source): void {
            Async::delay(0.05);
            $source->cancel();
        })->ignore();

        try {
            $subscription->next(null, $source->token());
            self::fail('The wait must be cancelled');
        } catch (CancelledException $e) {
            self::assertNotInstanceOf(OutcomeUnknown::class, $e, 'A wait sent nothing');
        }
    }

    public function testALateReplyAfterATimeoutIsDroppedAndTheNextRequestGetsItsOwn(): void
    {
        $subject = self::subject('late');
        $service = $this->connect();
        $this->serve($service, $service->subscribe($subject), 0.3);
        $service->flush();
        $client = $this->connect();

        try {
            $client->request($subject, 'first', 0.1);
            self::fail('the slow reply came in time');
        } catch (RequestTimeoutException) {
        }
        self::assertSame('SECOND', $client->request($subject, 'second', 2.0)->payload);
    }

    public function testAnInboxReceivesManyAnswersToOneMessage(): void
    {
        $subject = self::subject('stream');
        $service = $this->connect();
        $requests = $service->subscribe($subject);
        Async::run(static function () use ($service, $requests): void {
            $request = $requests->next();
            foreach (['one', 'two', 'three'] as $part) {
                $service->publish((string) $request->replyTo, $part);
            }
        })->ignore();
        $service->flush();
        $client = $this->connect();
        $inbox = $client->openInbox();
        $client->publish($subject, 'go', null, $inbox->subject);

        self::assertSame(['one', 'two', 'three'], [$inbox->next(2)->payload, $inbox->next(2)->payload, $inbox->next(2)->payload]);
        $inbox->close();
        self::assertSame(0, $client->statistics()->awaitingReplies);
    }
}
