<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\OutcomeUnknown;
use Bobbin\Async\TimeoutCancellation;

/**
 * A long call cancelled while it runs on the server (pg_sleep, SLEEP(), fiber.sleep, BLPOP, a
 * request a responder takes its time over): the caller hears one of the three outcomes of
 * docs/CLIENTS.md section 5 in a bounded time — done (its result), not done (the cancellation's
 * exception, or the server's error), unknown (an Async\OutcomeUnknown) — and "not done" is never
 * said of a write that took effect. The connection (the pool of one) then answers the next call
 * with that call's own answer, never the cancelled call's late one.
 *
 * For every client. Tarantool and NATS have no way to stop a request on the server
 * (docs/TARANTOOL.md "Cancellation and timeouts", docs/NATS.md): see their subclasses.
 */
abstract class CancelWhileRunningContract extends ClientContractTestCase
{
    public function testAReadCancelledWhileItRunsRaisesTheCancellationAndTheNextCallGetsItsOwnAnswer(): void
    {
        $client = $this->client(poolSize: 1);

        $took = self::timed(static function () use ($client): void {
            try {
                $client->sleep(3.0, new TimeoutCancellation(0.2, 'the caller gave up'));
                self::fail('The call must be cancelled');
            } catch (CancelledException $e) {
                self::assertSame('the caller gave up', $e->getMessage());
            }
        });

        self::assertLessThan(1.5, $took, 'The caller waits a bounded time, not for the call to end');
        self::assertSame('first', $client->echo('first'));
        self::assertSame('second', $client->echo('second'));
    }

    public function testAWriteCancelledWhileItRunsIsReportedAsWhatBecameOfIt(): void
    {
        $client = $this->client(poolSize: 1);
        $key = self::key();
        $outcome = 'done';

        try {
            $client->slowWrite($key, 0.6, new TimeoutCancellation(0.2));
        } catch (OutcomeUnknown) {
            $outcome = 'unknown';
        } catch (CancelledException) {
            $outcome = 'not done';
        }

        self::assertSame('after', $client->echo('after'));
        Async::delay(0.8); // past the write's own end, had it gone on
        match ($outcome) {
            'done' => self::assertTrue($client->written($key), 'Reported done: it must have taken effect'),
            'not done' => self::assertFalse($client->written($key), 'Reported not done (the cancellation): it must not have taken effect'),
            'unknown' => null, // either is right: that is what unknown says
        };
    }
}
