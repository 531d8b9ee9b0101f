<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Async;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Exception\ConnectionLostException;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** Tarantool restarted under a connection: waiting requests fail, the next ones reconnect and authenticate. */
final class ServerRestartTest extends TestCase
{
    public function testWaitingRequestsGetConnectionLostAndTheNextRequestReconnectsAndAuthenticates(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        $connection->replace('bench', [1, 'before']);
        $waiting = [];
        for ($i = 0; $i < 5; $i++) {
            $waiting[] = Async::run(static fn () => $connection->call('sleep_echo', [$i, 30]));
        }
        // Marked safe to repeat: sent again over the new connection.
        $repeatable = Async::run(static fn () => $connection->call('sleep_echo', ['repeated', 0.5], null, true));
        Async::delay(0.1); // all of them sent

        EmbeddedTarantool::restart();

        foreach ($waiting as $future) {
            try {
                $future->await();
                self::fail('answered across a restart');
            } catch (ConnectionLostException $e) {
                self::assertStringContainsString('Tarantool (bobbin@127.0.0.1:', $e->getMessage());
                self::assertStringContainsString('closed the connection', $e->getMessage());
            }
        }
        self::assertSame(['repeated'], $repeatable->await());
        // The server's data did not survive (wal_mode = none); the connection did: a new socket, logged in again.
        self::assertSame([], $connection->select('bench', 1));
        self::assertSame('bobbin', $connection->eval('return box.session.user()')[0]);
        $connection->close();
    }

    public function testIdleConnectionsNoticeTheRestartWithoutARoundTrip(): void
    {
        $connection = Connection::connect(EmbeddedTarantool::url());
        self::assertTrue($connection->isAlive());

        EmbeddedTarantool::restart();
        Async::delay(0.05);

        self::assertFalse($connection->isAlive());
        $connection->ping(); // a new socket
        self::assertTrue($connection->isAlive());
        $connection->close();
    }
}
