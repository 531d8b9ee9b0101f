<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\Postgres\Exception\ConnectionLostException;

final class ListenNotifyTest extends PostgresTestCase
{
    public function testNotificationsReachAFiberInOrder(): void
    {
        $pool = $this->pool();
        $listener = $pool->listen('pgtest_events');
        try {
            $received = Async::run(static function () use ($listener): array {
                $payloads = [];
                for ($i = 0; $i < 3; $i++) {
                    $notification = $listener->receive(new TimeoutCancellation(5.0));
                    self::assertSame('pgtest_events', $notification->channel);
                    self::assertGreaterThan(0, $notification->senderPid);
                    $payloads[] = $notification->payload;
                }

                return $payloads;
            });
            foreach (['one', 'two', 'three'] as $payload) {
                $pool->execute('SELECT pg_notify($1, $2)', ['pgtest_events', $payload]);
            }

            self::assertSame(['one', 'two', 'three'], $received->await());
        } finally {
            $listener->close();
        }
    }

    public function testOtherChannelsAreNotDelivered(): void
    {
        $pool = $this->pool();
        $listener = $pool->listen('pgtest_mine');
        try {
            $pool->execute("NOTIFY pgtest_other, 'x'");
            $pool->execute("NOTIFY pgtest_mine, 'y'");

            self::assertSame('y', $listener->receive(new TimeoutCancellation(5.0))->payload);
            $this->expectException(TimeoutException::class);
            $listener->receive(new TimeoutCancellation(0.2));
        } finally {
            $listener->close();
        }
    }

    public function testReceivingAfterCloseFailsClearly(): void
    {
        $listener = $this->pool()->listen('pgtest_closed');
        $listener->close();

        $this->expectException(ConnectionLostException::class);
        $listener->receive(new TimeoutCancellation(5.0));
    }
}
