<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Cancellation;
use Bobbin\Redis\Client;
use Bobbin\Tests\Support\Redis\RedisServerProcess;
use Bobbin\Tests\Support\ServerProcess;

/** The Redis Client's shared connection, opened on first use. */
final class RedisClientSharedConnectTest extends SharedConnectContract
{
    private ServerProcess $server;
    private Client $client;

    protected function setUpServerAndClient(): void
    {
        $this->server = RedisServerProcess::start();
        $this->client = new Client(RedisServerProcess::url($this->server));
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
        return $this->client->execute(['PING'], $cancellation);
    }

    protected function expectedAnswer(): mixed
    {
        return 'PONG';
    }

    protected function tearDownServerAndClient(): void
    {
        $this->client->close();
        $this->server->remove();
    }
}
