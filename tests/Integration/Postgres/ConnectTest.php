<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectTimeoutException;
use Bobbin\Tests\Support\EmbeddedPostgres;

final class ConnectTest extends PostgresTestCase
{
    public function testConnectsOverTheUnixSocketWithAKeyValueString(): void
    {
        $connection = $this->connect();

        self::assertSame(1, $connection->queryValue('SELECT 1'));
        self::assertGreaterThan(0, $connection->pid());
        self::assertSame((string) $connection->pid(), (string) $connection->queryValue('SELECT pg_backend_pid()'));
    }

    public function testConnectsOverTcpWithAPassword(): void
    {
        $connection = $this->connect(new ConnectionConfig(EmbeddedPostgres::tcpConnectionString()));

        self::assertSame('bobbin', $connection->queryValue('SELECT current_user'));
    }

    public function testConnectsWithAUriConnectionString(): void
    {
        $uri = \sprintf('postgresql://bobbin:bobbin@127.0.0.1:%d/bobbin', EmbeddedPostgres::port());

        self::assertSame('bobbin', $this->connect(new ConnectionConfig($uri))->queryValue('SELECT current_database()'));
    }

    public function testConnectsWithAConfigFromAUrlAndAPoolFromTheSameUrl(): void
    {
        $url = \sprintf('postgresql://bobbin:bobbin@127.0.0.1:%d/bobbin?application_name=from_url', EmbeddedPostgres::port());

        self::assertSame('from_url', $this->connect(ConnectionConfig::fromUrl($url, queryTimeout: 5.0))->queryValue('SHOW application_name'));
        $pool = new \Bobbin\Postgres\ConnectionPool(\Bobbin\Postgres\PoolConfig::fromUrl($url, maxSize: 1));
        try {
            self::assertSame('bobbin', $pool->queryValue('SELECT current_database()'));
        } finally {
            $pool->close();
        }
    }

    public function testAWrongPortFailsFastWithAClearError(): void
    {
        $port = self::freePort();
        $started = \microtime(true);
        try {
            Connection::connect(\sprintf('host=127.0.0.1 port=%d dbname=bobbin user=bobbin password=bobbin', $port));
            self::fail('Connecting to a closed port must fail');
        } catch (ConnectException $e) {
            self::assertStringContainsString((string) $port, $e->getMessage());
            self::assertStringContainsString('refused', $e->getMessage());
            self::assertStringNotContainsString('password=bobbin', $e->getMessage());
        }
        self::assertLessThan(3.0, \microtime(true) - $started);
    }

    public function testAWrongPasswordFailsWithAClearError(): void
    {
        $dsn = \str_replace('password=bobbin', 'password=wrong', EmbeddedPostgres::tcpConnectionString());
        $started = \microtime(true);
        try {
            Connection::connect($dsn);
            self::fail('A wrong password must be refused');
        } catch (ConnectException $e) {
            self::assertStringContainsString('password authentication failed for user "bobbin"', $e->getMessage());
            self::assertStringNotContainsString('password=wrong', $e->getMessage());
        }
        self::assertLessThan(3.0, \microtime(true) - $started);
    }

    public function testAnUnknownDatabaseFailsWithAClearError(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessageMatches('/database "pgtest_missing" does not exist/');
        Connection::connect(self::dsn() . ' dbname=pgtest_missing');
    }

    public function testAServerThatNeverAnswersHitsTheConnectTimeout(): void
    {
        // A listening socket nobody accepts on: TCP connects, the startup message is never answered.
        $server = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($server);
        $port = (int) \substr((string) \strrchr((string) \stream_socket_get_name($server, false), ':'), 1);
        $started = \microtime(true);
        try {
            Connection::connect(new ConnectionConfig(\sprintf('host=127.0.0.1 port=%d dbname=x user=x', $port), connectTimeout: 0.5));
            self::fail('A silent server must time out');
        } catch (ConnectTimeoutException $e) {
            self::assertStringContainsString('0.500 s', $e->getMessage());
        } finally {
            \fclose($server);
        }
        self::assertLessThan(3.0, \microtime(true) - $started);
    }

    public function testClosedConnectionsRefuseFurtherStatements(): void
    {
        $connection = Connection::connect(self::dsn());
        $connection->close();

        $this->expectException(\Bobbin\Postgres\Exception\ConnectionLostException::class);
        $connection->query('SELECT 1');
    }

    private static function freePort(): int
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($socket);
        $name = (string) \stream_socket_get_name($socket, false);
        \fclose($socket);

        return (int) \substr((string) \strrchr($name, ':'), 1);
    }
}
