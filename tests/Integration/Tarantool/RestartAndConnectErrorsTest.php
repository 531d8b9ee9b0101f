<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Exception\AccessDeniedException;
use Bobbin\Tarantool\Exception\ConnectException;
use Bobbin\Tarantool\Exception\ServerNotReadyException;
use Bobbin\Tests\Support\ServerProcess;
use Bobbin\Tests\Support\Tarantool\PrivateTarantool;
use PHPUnit\Framework\TestCase;

/** A private Tarantool restarted, stopped, or still bootstrapping under a plain Connection (issue 42 item 3). */
final class RestartAndConnectErrorsTest extends TestCase
{
    private ?ServerProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->remove();
        $this->server = null;
    }

    public function testAnIdempotentSelectByANameNotLookedUpYetIsSentAgainAfterAnIdleRestart(): void
    {
        $this->server = PrivateTarantool::start();
        $connection = Connection::connect(PrivateTarantool::url($this->server));
        $connection->ping(); // no name looked up on this connection

        $this->server->restart();

        self::assertSame([[1, 'one']], $connection->select('things', 1, idempotent: true));
        $connection->close();
    }

    public function testAPlainConnectionsFirstRequestAfterAnIdleRestartGoesOutOnANewSocket(): void
    {
        $this->server = PrivateTarantool::start();
        $connection = Connection::connect(PrivateTarantool::url($this->server));
        self::assertSame([[1, 'one']], $connection->select('things', 1));

        $this->server->restart();

        // Not idempotent, and still never sent on the dead socket: the connection sees it closed first.
        $connection->ping();
        self::assertSame([[1, 'one']], $connection->select('things', 1));
        $connection->close();
    }

    public function testARefusedConnectSaysWhyNotSuccess(): void
    {
        $port = ServerProcess::freePort();
        try {
            Connection::connect('tarantool://bobbin:bobbin@127.0.0.1:' . $port);
            self::fail('connected to a port nobody listens on');
        } catch (ConnectException $e) {
            self::assertStringContainsString('Connection refused', $e->getMessage());
            self::assertStringNotContainsString('Success', $e->getMessage());
        }
    }

    public function testAServerStillBootstrappingIsATransientConnectErrorNotAccessDenied(): void
    {
        // Waiting for a replica that is not there keeps it bootstrapping (listening, greeting) for 3 s.
        $this->server = PrivateTarantool::start(
            waitForUsers: false,
            cfg: \sprintf("replication = {'127.0.0.1:%d'}, replication_connect_timeout = 3, replication_connect_quorum = 1,", ServerProcess::freePort()),
        );
        try {
            Connection::connect(PrivateTarantool::url($this->server));
            self::fail('logged in to a server still bootstrapping');
        } catch (AccessDeniedException $e) {
            self::fail('told to fix the settings: ' . $e->getMessage());
        } catch (ServerNotReadyException $e) {
            self::assertInstanceOf(ConnectException::class, $e);
            self::assertStringContainsString('bootstrap', $e->getMessage());
        }
    }
}
