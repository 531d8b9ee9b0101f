<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Cancellation;
use Bobbin\Tarantool\Connection;
use Bobbin\Tests\Support\ServerProcess;
use Bobbin\Tests\Support\Tarantool\PrivateTarantool;

/** A Tarantool Connection's reconnect after its server restarted. */
final class TarantoolConnectionSharedConnectTest extends SharedConnectContract
{
    private ServerProcess $server;
    private Connection $connection;

    protected function setUpServerAndClient(): void
    {
        $this->server = PrivateTarantool::start();
        $this->connection = Connection::connect(PrivateTarantool::url($this->server));
        $this->server->restart();
        self::assertFalse($this->connection->isAlive(), 'the connection noticed the restart');
    }

    protected function freeze(): void
    {
        $this->server->freeze();
    }

    protected function thaw(): void
    {
        $this->server->thaw();
    }

    protected function ask(?Cancellation $cancellation): mixed
    {
        return $this->connection->select('things', 1, cancellation: $cancellation);
    }

    protected function expectedAnswer(): mixed
    {
        return [[1, 'one']];
    }

    protected function tearDownServerAndClient(): void
    {
        $this->connection->close();
        $this->server->remove();
    }
}
