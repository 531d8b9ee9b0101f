<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Async\Async;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Tests\Support\Postgres\FakeFault;
use Bobbin\Tests\Support\Postgres\FakePostgresServer;
use PHPUnit\Framework\TestCase;

/**
 * A backend terminated while its connection sits idle sends FATAL 57P01 and closes its socket
 * only after its exit, 0.3-1.7 ms later. A check between the two must already see the session
 * as over; the fake server stretches that gap to a second (ConnectionPoolTest covers the real
 * server, after the socket has closed).
 */
final class IdleTerminationTest extends TestCase
{
    private ?FakePostgresServer $server = null;
    /** @var list<Connection|ConnectionPool> */
    private array $clients = [];

    protected function setUp(): void
    {
        $this->server = FakePostgresServer::start(FakeFault::TerminateWhileIdle);
    }

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            $client->close();
        }
        $this->clients = [];
        $this->server?->stop();
        $this->server = null;
    }

    public function testAConnectionWhoseServerSentItsFatalWhileIdleIsNoLongerAlive(): void
    {
        \assert($this->server !== null);
        $connection = Connection::connect(new ConnectionConfig($this->server->connectionString()));
        $this->clients[] = $connection;
        $connection->query('SELECT n FROM t');
        Async::delay(0.2); // the FATAL is there, the end of the stream is not

        self::assertFalse($connection->isAlive());
        self::assertTrue($connection->isClosed());
    }

    public function testThePoolReplacesItBeforeSendingAStatement(): void
    {
        \assert($this->server !== null);
        $pool = new ConnectionPool(PoolConfig::fromConnectionString($this->server->connectionString(), maxSize: 1, queryTimeout: 5.0));
        $this->clients[] = $pool;
        $pool->query('SELECT n FROM t');
        Async::delay(0.2);

        self::assertSame([['n' => 1], ['n' => 2]], $pool->queryAll('SELECT n FROM t'));
        self::assertSame(1, $pool->statistics()->discarded);
    }
}
