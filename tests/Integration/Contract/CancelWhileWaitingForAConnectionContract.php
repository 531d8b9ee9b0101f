<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutCancellation;

/**
 * A call waiting for a pooled connection (its pool's only one is busy) and cancelled there
 * raises its cancellation's own exception at once, never runs on the server, and the pool serves
 * the next call.
 *
 * Not for NATS: it has no pool; requests never wait for a connection, they all share one (the
 * queue they do wait in is CancelWhileQueuedOnTheConnectionContract's).
 */
abstract class CancelWhileWaitingForAConnectionContract extends ClientContractTestCase
{
    public function testACallWaitingBehindALongOneIsCancelledWithItsOwnExceptionAndNeverRuns(): void
    {
        $client = $this->client(poolSize: 1);
        $key = self::key();
        $long = self::inFiber(static fn () => $client->sleep(0.5));
        Async::delay(0.05); // the long call holds the only connection
        $cancellation = new TimeoutCancellation(0.1, 'the caller gave up');

        $waited = self::timed(static function () use ($client, $key, $cancellation): void {
            try {
                $client->slowWrite($key, 0.0, $cancellation);
                self::fail('The waiting call must be cancelled');
            } catch (CancelledException $e) {
                self::assertSame('the caller gave up', $e->getMessage(), 'The cancellation\'s own exception');
            }
        });

        self::assertLessThan(0.4, $waited, 'Raised as the cancellation fired, not when the connection came free');
        $long->await();
        self::assertSame('next', $client->echo('next'));
        Async::delay(0.1);
        self::assertFalse($client->written($key), 'The cancelled call never ran');
    }

    public function testACallCancelledBeforeItsTurnLeavesTheConnectionToTheNextCaller(): void
    {
        $client = $this->client(poolSize: 1);
        $key = self::key();
        $long = self::inFiber(static fn () => $client->sleep(0.3));
        Async::delay(0.05);
        $source = new CancellationSource();
        $cancelled = self::inFiber(static fn () => $client->slowWrite($key, 0.0, $source));
        $next = self::inFiber(static fn () => $client->echo('the next caller'));
        Async::delay(0.05);
        $source->cancel();

        self::assertInstanceOf(CancelledException::class, self::failureOf($cancelled));
        $long->await();
        self::assertSame('the next caller', $next->await());
        self::assertFalse($client->written($key));
    }
}
