<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;
use Bobbin\Pool\PoolSettings;
use Bobbin\Mysql\Exception\AccessDeniedException;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Exception\QueryException;
use Bobbin\Mysql\Exception\UnsupportedAuthPluginException;
use Bobbin\Tests\Support\Mysql\FakeMysqlServer;
use PHPUnit\Framework\TestCase;

/**
 * The exchanges no embedded MariaDB can show (caching_sha2_password needs MySQL 8), played by a
 * scripted fake server as the protocol documentation describes them.
 */
final class FakeServerTest extends TestCase
{
    private ?FakeMysqlServer $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
    }

    private function serve(string $scenario, bool $unixSocket = false): FakeMysqlServer
    {
        return $this->server = FakeMysqlServer::start($scenario, $unixSocket);
    }

    public function testCachingSha2FastAuthentication(): void
    {
        $connection = Connection::connect($this->serve('sha2-fast')->config());

        self::assertSame('yes', $connection->command('SELECT anything')->rows[0]['ok']);
        $connection->close();
    }

    public function testCachingSha2WithAWrongPasswordIsAccessDenied(): void
    {
        $this->expectException(AccessDeniedException::class);
        Connection::connect($this->serve('sha2-fast')->config('wrong'));
    }

    public function testCachingSha2FullAuthenticationOverPlainTcpUsesTheServersRsaKey(): void
    {
        $connection = Connection::connect($this->serve('sha2-full-rsa')->config());

        self::assertSame('yes', $connection->command('SELECT 1')->rows[0]['ok']);
    }

    public function testCachingSha2FullAuthenticationOverAUnixSocketSendsThePasswordItself(): void
    {
        $connection = Connection::connect($this->serve('sha2-full-unix', true)->config());

        self::assertSame('yes', $connection->command('SELECT 1')->rows[0]['ok']);
    }

    public function testAnAuthSwitchToNativePasswordUsesTheNewNonce(): void
    {
        $connection = Connection::connect($this->serve('auth-switch-native')->config());

        self::assertSame('yes', $connection->command('SELECT 1')->rows[0]['ok']);
    }

    public function testAnAuthSwitchToAnUnknownPluginIsAnErrorNamingIt(): void
    {
        $this->expectException(UnsupportedAuthPluginException::class);
        $this->expectExceptionMessage('auth_gssapi_client');
        Connection::connect($this->serve('auth-switch-unsupported')->config());
    }

    public function testAGreetingOfAnotherProtocolIsAConnectError(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('protocol version 9');
        Connection::connect($this->serve('bad-greeting')->config());
    }

    public function testALocalInfileRequestIsAnsweredWithNothingAndReportedAsRefused(): void
    {
        $connection = Connection::connect($this->serve('local-infile')->config());
        try {
            $connection->command("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t");
            self::fail('the request must be refused');
        } catch (QueryException $e) {
            self::assertStringContainsString('"/etc/passwd"', $e->getMessage());
            self::assertStringContainsString('never sends local files', $e->getMessage());
        }
        self::assertFalse($connection->isClosed(), 'the exchange ended in step');
    }

    public function testAPacketOutOfSequenceClosesTheConnection(): void
    {
        $connection = Connection::connect($this->serve('bad-sequence')->config());
        try {
            $connection->command('SELECT 1');
            self::fail('a protocol violation must surface');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('sequence 7', $e->getMessage());
        }
        self::assertTrue($connection->isClosed());
    }

    public function testAfterGarbageFromTheServerThePoolOpensANewConnectionAndNeverReusesTheOld(): void
    {
        $server = $this->serve('garbage-then-good');
        $pool = new ConnectionPool(new PoolConfig($server->config(), new PoolSettings(maxSize: 1)));
        $first = $pool->acquire();
        try {
            $first->command('SELECT 1');
            self::fail('garbage must not become a result');
        } catch (ProtocolException $e) {
            self::assertStringContainsString('0xff', $e->getMessage());
        } finally {
            $pool->release($first);
        }
        self::assertTrue($first->isClosed());

        // The fake server answers this only on a second connection: the first one it closed.
        $next = $pool->acquire();
        self::assertNotSame($first, $next);
        self::assertSame('yes', $next->command('SELECT 1')->rows[0]['ok']);
        $pool->release($next);
        self::assertSame(1, $pool->statistics()->discarded);
        $pool->close();
    }

    public function testAServerGoneInTheMiddleOfAResultIsConnectionLost(): void
    {
        $connection = Connection::connect($this->serve('close-mid-result')->config());

        $this->expectException(ConnectionLostException::class);
        $connection->command('SELECT a FROM t');
    }
}
