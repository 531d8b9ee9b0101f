<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Tests\Support\Contract\ClientUnderTest;

/**
 * A call whose cancellation fires before it left the client raises the cancellation's own
 * exception and never runs on the server: one already cancelled when it is made, and one
 * cancelled in the loop tick it was queued behind another (a pooled client queues it for the
 * connection, a client that multiplexes one connection — Redis, Tarantool, NATS — in the bytes it
 * writes at the end of the tick). The connection serves the next call correctly.
 *
 * For every client.
 */
abstract class CancelWhileQueuedOnTheConnectionContract extends ClientContractTestCase
{
    public function testACallWhoseCancellationAlreadyFiredRaisesItAndNeverReachesTheServer(): void
    {
        $client = $this->client();
        $client->write(self::key()); // the connection is open: nothing else to wait for
        $key = self::key();
        $source = new CancellationSource();
        $source->cancel(new CancelledException('cancelled before the call'));

        try {
            $client->write($key, $source);
            self::fail('The call must raise its cancellation');
        } catch (CancelledException $e) {
            self::assertSame('cancelled before the call', $e->getMessage());
            self::assertNotInstanceOf(OutcomeUnknown::class, $e, 'Never sent: not done, not unknown');
        }

        self::assertSame('next', $client->echo('next'));
        self::assertFalse($client->written($key), 'Nothing was sent');
    }

    public function testACallCancelledInTheTickItWasQueuedBehindAnotherNeverReachesTheServer(): void
    {
        $client = $this->client();
        $client->write(self::key()); // the connection is open: nothing else to wait for
        $first = self::key();
        $second = self::key();
        $source = new CancellationSource();
        $this->holdTheConnection($client);
        // Started in this order in one tick: the first call goes out, the second is queued
        // behind it, and the cancel comes before the end of the tick.
        $sent = self::inFiber(static fn () => $client->write($first));
        $queued = self::inFiber(static fn () => $client->write($second, $source));
        self::inFiber(static fn () => $source->cancel(new CancelledException('cancelled while queued')));

        $failure = self::failureOf($queued);
        self::assertSame('cancelled while queued', $failure->getMessage());
        self::assertNotInstanceOf(OutcomeUnknown::class, $failure, 'Never sent: not done, not unknown');
        $sent->await();
        self::assertSame('next', $client->echo('next'));
        self::assertTrue($client->written($first));
        self::assertFalse($client->written($second), 'The queued call never left the client');
    }

    /**
     * Makes sure the next call is still in flight when the one after it is queued: a client
     * that writes a lone call at once and reads its answer before it waits may otherwise be done
     * with it before the second call is made. Nothing by default.
     */
    protected function holdTheConnection(ClientUnderTest $client): void
    {
    }
}
