<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Async\Async;
use Bobbin\Nats\ConnectionState;
use Bobbin\Nats\Exception\ConnectionLostException;
use Bobbin\Nats\Exception\NatsException;
use Bobbin\Nats\Exception\ProtocolException;
use Bobbin\Tests\Support\Nats\FakeNatsServer;

final class ReconnectTest extends NatsTestCase
{
    public function testAServerRestartFailsRequestsInFlightThenSubscriptionsComeBackAndLaterRequestsSucceed(): void
    {
        $server = $this->privateServer();
        $service = $this->connect($server->url());
        $requests = $service->subscribe('svc.slow', 'svc');
        Async::run(static function () use ($service, $requests): void {
            try {
                while (true) {
                    $request = $requests->next();
                    if ($request->payload === 'slow') {
                        Async::delay(5.0); // still "working" when the server goes
                    }
                    $service->publish((string) $request->replyTo, 'done:' . $request->payload);
                }
            } catch (\Throwable) {
            }
        })->ignore();
        $service->flush();
        $client = $this->connect($server->url());
        $watcher = $this->connect($server->url());
        $events = $watcher->subscribe('events.>');
        $watcher->flush();

        $inFlight = Async::run(static fn () => $client->request('svc.slow', 'slow', 20.0));
        Async::delay(0.2);
        $server->restart();

        try {
            $inFlight->await();
            self::fail('a request in flight across the restart succeeded');
        } catch (ConnectionLostException $error) {
            self::assertStringContainsString('may or may not have been handled', $error->getMessage());
        }
        $client->flush(10.0); // back up
        $watcher->flush(10.0);
        $service->flush(10.0);

        self::assertSame('done:later', $client->request('svc.slow', 'later', 5.0)->payload, 'the queue subscription came back');
        $client->publish('events.one', 'after the restart');
        self::assertSame('after the restart', $events->next(5.0)->payload, 'the plain subscription came back');
        self::assertGreaterThanOrEqual(1, $client->statistics()->reconnects);
        self::assertSame(ConnectionState::Connected, $client->state());
    }

    public function testPublishesMadeWhileTheServerIsDownGoOutAfterTheSubscriptionsOnceItIsBack(): void
    {
        $server = $this->privateServer();
        $connection = $this->connect($server->url());
        $subscription = $connection->subscribe('buffered');
        $connection->flush();
        $server->stop();
        for ($i = 0; $i < 100 && $connection->state() === ConnectionState::Connected; $i++) {
            Async::delay(0.02);
        }
        self::assertSame(ConnectionState::Reconnecting, $connection->state());

        for ($i = 0; $i < 10; $i++) {
            $connection->publish('buffered', (string) $i);
        }
        $server->launch();
        $connection->flush(10.0);

        $received = [];
        for ($i = 0; $i < 10; $i++) {
            $received[] = $subscription->next(5.0)->payload;
        }
        self::assertSame(\array_map('strval', \range(0, 9)), $received, 'the subscription was back before the buffered publishes');
    }

    public function testAServerThatStopsAnsweringPingsIsLeftForANewConnection(): void
    {
        $fake = FakeNatsServer::start('silent');
        try {
            $connection = $this->connect($fake->url(), pingInterval: 0.1, maxPingsOut: 2);
            $started = \microtime(true);
            while ($connection->statistics()->reconnects === 0 && \microtime(true) - $started < 3) {
                Async::delay(0.05);
            }

            self::assertSame(1, $connection->statistics()->reconnects, 'reconnected after two PINGs went unanswered');
            self::assertLessThan(1.0, \microtime(true) - $started);
        } finally {
            $fake->stop();
        }
    }

    public function testAMalformedFrameIsReportedAndTheConnectionStartsAfresh(): void
    {
        $fake = FakeNatsServer::start('garbage');
        try {
            $connection = $this->connect($fake->url(), pingInterval: 0.1);
            $errors = [];
            $connection->onError(static function (NatsException $error) use (&$errors): void {
                $errors[] = $error;
            });
            $started = \microtime(true);
            while ($connection->statistics()->reconnects === 0 && \microtime(true) - $started < 3) {
                Async::delay(0.05);
            }

            self::assertSame(1, $connection->statistics()->reconnects);
            self::assertInstanceOf(ProtocolException::class, $errors[0] ?? null);
            $connection->flush(2.0);
        } finally {
            $fake->stop();
        }
    }

    public function testWithoutReconnectABrokenConnectionCloses(): void
    {
        $server = $this->privateServer();
        $connection = $this->connect($server->url(), reconnect: false);
        $subscription = $connection->subscribe('x');
        $connection->flush();
        $server->stop();

        $this->expectException(ConnectionLostException::class);
        $subscription->next(5.0);
    }
}
