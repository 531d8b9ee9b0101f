<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\PoolTimeout;
use Bobbin\Async\Timeout;

/**
 * With all N connections of a pool busy, call N+1 waits for one, then — none coming free within
 * the pool's acquire timeout — fails with an Async\PoolTimeout (a Timeout: nothing was sent,
 * trying again later is safe), without waiting for the busy calls to end. The pool serves the
 * next call once a connection comes back.
 *
 * Not for NATS: one connection, no pool (docs/CLIENTS.md, the PoolTimeout row).
 */
abstract class PoolExhaustionContract extends ClientContractTestCase
{
    public function testTheCallBeyondThePoolSizeWaitsItsAcquireTimeoutThenFailsWithPoolTimeout(): void
    {
        $client = $this->client(poolSize: 2, acquireTimeout: 0.3);
        $busy = [self::inFiber(static fn () => $client->sleep(1.5)), self::inFiber(static fn () => $client->sleep(1.5))];
        Async::delay(0.1);

        $waited = self::timed(static function () use ($client): void {
            try {
                $client->echo('one too many');
                self::fail('The call beyond the pool size must time out');
            } catch (PoolTimeout $e) {
                self::assertInstanceOf(Timeout::class, $e);
            }
        });

        self::assertGreaterThanOrEqual(0.29, $waited, 'It waited for a connection');
        self::assertLessThan(1.0, $waited, 'Its own acquire timeout, not the busy calls\' end');
        foreach ($busy as $call) {
            $call->await();
        }
        self::assertSame('after', $client->echo('after'));
    }
}
