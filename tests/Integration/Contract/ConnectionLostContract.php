<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Contract;

use Bobbin\Async\Async;
use Bobbin\Async\ConnectionLost;
use Bobbin\Async\OutcomeUnknown;

/**
 * The server ends the session while a call runs on it (pg_terminate_backend(), KILL, CLIENT
 * KILL; Tarantool 2.6 cannot end one session from another and NATS sessions are the server's,
 * so for those two a server of the test's own is stopped and started again): the caller gets an
 * exception that is an Async\ConnectionLost, hence an Async\OutcomeUnknown — the write may or may
 * not have run — and the next call works on a new connection.
 *
 * For every client.
 */
abstract class ConnectionLostContract extends ClientContractTestCase
{
    public function testAWriteWhoseSessionTheServerEndsFailsAsConnectionLostAndTheNextCallReconnects(): void
    {
        $client = $this->client(poolSize: 1);
        $key = self::key();
        $call = self::inFiber(static fn () => $client->slowWrite($key, 3.0));
        Async::delay(0.3); // running on the server

        $client->endSessionsRunning($key);
        $error = self::failureOf($call);

        self::assertInstanceOf(ConnectionLost::class, $error, $error::class . ': ' . $error->getMessage());
        self::assertInstanceOf(OutcomeUnknown::class, $error);
        self::assertSame('after', $client->echo('after'));
    }
}
