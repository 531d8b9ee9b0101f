<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Nats;

use Bobbin\Nats\Connection;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\NatsServer;
use PHPUnit\Framework\TestCase;

abstract class NatsTestCase extends TestCase
{
    /** @var list<Connection> */
    private array $connections = [];
    /** @var list<NatsServer> */
    private array $servers = [];

    /** A connection to the checkout's nats-server (or $url), closed after the test. */
    protected function connect(?string $url = null, mixed ...$settings): Connection
    {
        $connection = Connection::connect(ConnectionConfig::fromUrl($url ?? EmbeddedNats::url(), ...$settings));
        $this->connections[] = $connection;

        return $connection;
    }

    /** A nats-server of this test's own, removed after it. */
    protected function privateServer(string $extraConfig = ''): NatsServer
    {
        $server = NatsServer::start($extraConfig);
        $this->servers[] = $server;

        return $server;
    }

    /** A subject no other test (or run) uses. */
    protected static function subject(string $name): string
    {
        return 'test.' . $name . '.' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        foreach ($this->connections as $connection) {
            $connection->close();
        }
        $this->connections = [];
        foreach ($this->servers as $server) {
            $server->remove();
        }
        $this->servers = [];
    }
}
