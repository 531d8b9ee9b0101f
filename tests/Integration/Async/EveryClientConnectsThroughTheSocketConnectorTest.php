<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Async;

use Bobbin\Async\Async;
use Bobbin\Async\SocketConnector;
use Bobbin\Async\ConnectTarget;
use Bobbin\Ipc\ConnectTimeoutException as IpcConnectTimeout;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\SocketClient;
use Bobbin\Mysql;
use Bobbin\Nats;
use Bobbin\Redis;
use Bobbin\Tarantool;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use Bobbin\Tests\Unit\Async\AsyncTestCase;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * What the clients' connects used to do differently before they shared Async\SocketConnector:
 * keep-alive probes only on Redis's sockets, and the socket of a connect that timed out left
 * open by some (held by the exception's trace where traces keep arguments, as in development).
 * Real servers for the first; a listener whose accept queue is full for the second.
 */
final class EveryClientConnectsThroughTheSocketConnectorTest extends AsyncTestCase
{
    /** @var list<resource> */
    private array $open = [];
    private string|false $ignoreArgs = false;

    protected function setUp(): void
    {
        parent::setUp();
        // Traces keep their arguments (a development php.ini): an exception that holds a
        // socket in its trace then keeps it open.
        $this->ignoreArgs = \ini_set('zend.exception_ignore_args', '0');
        // The loop opens its own descriptors on its first wait: before any count.
        [$reader, $writer] = $this->socketPair();
        Async::awaitWritable($writer, 1.0);
        \fclose($reader);
        \fclose($writer);
    }

    protected function tearDown(): void
    {
        foreach ($this->open as $stream) {
            \fclose($stream);
        }
        if ($this->ignoreArgs !== false) {
            \ini_set('zend.exception_ignore_args', $this->ignoreArgs);
        }
        parent::tearDown();
    }

    public function testAMysqlConnectionOverTcpHasKeepAliveProbes(): void
    {
        $config = Mysql\ConnectionConfig::fromUrl(EmbeddedMysql::tcpUrl() . '?tls_ca=' . EmbeddedMysql::tlsCa());
        $connection = Mysql\Connection::connect($config);

        try {
            self::assertKeepAliveTowards($config->port);
        } finally {
            $connection->close(); // a NATS connection left open keeps the loop running
        }
    }

    public function testARedisConnectionOverTcpHasKeepAliveProbes(): void
    {
        $config = Redis\ConnectionConfig::fromUrl(EmbeddedRedis::tcpUrl());
        $connection = Redis\Connection::connect($config);

        try {
            self::assertKeepAliveTowards($config->port);
        } finally {
            $connection->close(); // a NATS connection left open keeps the loop running
        }
    }

    public function testANatsConnectionHasKeepAliveProbes(): void
    {
        $config = Nats\ConnectionConfig::fromUrl(EmbeddedNats::url());
        $connection = Nats\Connection::connect($config);

        try {
            self::assertKeepAliveTowards($config->port);
        } finally {
            $connection->close(); // a NATS connection left open keeps the loop running
        }
    }

    public function testATarantoolConnectionOverTcpHasKeepAliveProbes(): void
    {
        $config = Tarantool\ConnectionConfig::fromUrl(EmbeddedTarantool::url());
        $connection = Tarantool\Connection::connect($config);

        try {
            self::assertKeepAliveTowards($config->port);
        } finally {
            $connection->close(); // a NATS connection left open keeps the loop running
        }
    }

    /** @return iterable<string, array{\Closure(int): void, class-string<\Throwable>}> */
    public static function timedOutConnects(): iterable
    {
        yield 'MySQL' => [static fn (int $port) => Mysql\Connection::connect(new Mysql\ConnectionConfig(port: $port, connectTimeout: 0.1)), Mysql\Exception\ConnectTimeoutException::class];
        yield 'Redis' => [static fn (int $port) => Redis\Connection::connect(new Redis\ConnectionConfig(port: $port, connectTimeout: 0.1)), Redis\Exception\ConnectTimeoutException::class];
        yield 'NATS' => [static fn (int $port) => Nats\Connection::connect(new Nats\ConnectionConfig(port: $port, connectTimeout: 0.1, reconnect: false)), Nats\Exception\ConnectTimeoutException::class];
        yield 'Tarantool' => [static fn (int $port) => Tarantool\Connection::connect(new Tarantool\ConnectionConfig(port: $port, connectTimeout: 0.1)), Tarantool\Exception\ConnectTimeoutException::class];
        yield 'Ipc' => [static fn (int $port) => (new SocketClient(Endpoint::tcp('127.0.0.1', $port), connectTimeout: 0.1))->request('x'), IpcConnectTimeout::class];
    }

    /**
     * @param \Closure(int): void $connect
     * @param class-string<\Throwable> $timeout
     */
    #[DataProvider('timedOutConnects')]
    public function testAConnectThatTimesOutClosesItsSocketEvenWhileItsExceptionIsHeld(\Closure $connect, string $timeout): void
    {
        $port = $this->listenerWithAFullAcceptQueue();
        $before = self::openDescriptors();

        $held = null;
        try {
            $connect($port);
            self::fail('The server never accepts: the connect should time out');
        } catch (\Throwable $e) {
            $held = $e;
        }

        self::assertInstanceOf($timeout, $held, (string) $held);
        self::assertSame($before, self::openDescriptors(), 'the timed-out socket is closed');
    }

    private static function assertKeepAliveTowards(int $port): void
    {
        $lines = \array_filter(
            \explode("\n", (string) \shell_exec('ss -tnpoH state established dst 127.0.0.1:' . $port)),
            static fn (string $line): bool => \str_contains($line, 'pid=' . \getmypid() . ','),
        );
        self::assertNotSame([], $lines, 'this process has a connection to port ' . $port);
        foreach ($lines as $line) {
            self::assertStringContainsString('timer:(keepalive', $line);
        }
    }

    /** The port of a listener whose accept queue is full: the kernel drops further SYNs, so their connects hang. */
    private function listenerWithAFullAcceptQueue(): int
    {
        $listener = \stream_socket_server('tcp://127.0.0.1:0', $errno, $error, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, \stream_context_create(['socket' => ['backlog' => 0]]));
        self::assertNotFalse($listener, (string) $error);
        $this->open[] = $listener;
        $address = (string) \stream_socket_get_name($listener, false);
        $port = (int) \substr($address, (int) \strrpos($address, ':') + 1);
        $this->open[] = (new SocketConnector())->connect(ConnectTarget::tcp('127.0.0.1', $port), \microtime(true) + 5);

        return $port;
    }

    private static function openDescriptors(): int
    {
        return \count((array) \scandir('/proc/self/fd'));
    }
}
