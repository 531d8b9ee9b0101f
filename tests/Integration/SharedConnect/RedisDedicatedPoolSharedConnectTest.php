<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Cancellation;
use Bobbin\Pool\PoolSettings;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\ConnectionConfig;
use Bobbin\Tests\Support\Redis\RedisServerProcess;
use Bobbin\Tests\Support\ServerProcess;

/**
 * A full pool (src/Pool, here the Redis client's dedicated connections, at most one): caller B
 * waits in line while caller A opens the one connection; A's deadline must not leave B waiting
 * out its acquire timeout.
 */
final class RedisDedicatedPoolSharedConnectTest extends SharedConnectContract
{
    private ServerProcess $server;
    private Client $client;

    protected function setUpServerAndClient(): void
    {
        $this->server = RedisServerProcess::start();
        $this->client = new Client(new ClientConfig(ConnectionConfig::fromUrl(RedisServerProcess::url($this->server)), new PoolSettings(maxSize: 1, acquireTimeout: 30.0)));
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
        return $this->client->blocking(['BLPOP', 'contract-nothing', 0.01], $cancellation);
    }

    protected function expectedAnswer(): mixed
    {
        return null;
    }

    protected function tearDownServerAndClient(): void
    {
        $this->client->close();
        $this->server->remove();
    }
}
