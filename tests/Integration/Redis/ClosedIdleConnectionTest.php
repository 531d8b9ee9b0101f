<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Redis\Exception\ConnectionLostException;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use Bobbin\Tests\Support\Redis\FakeRedisServer;
use Bobbin\Tests\Support\Redis\PrivateRedis;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The server closed the shared connection while nothing was in flight (CLIENT KILL, a restart,
 * its idle `timeout`): the next command was never sent on it, so it runs on a new connection and
 * answers. A command that was sent and then lost still fails (issue 35, item 4).
 */
final class ClosedIdleConnectionTest extends TestCase
{
    private static ?PrivateRedis $private = null;

    public static function tearDownAfterClass(): void
    {
        self::$private?->stop();
        self::$private = null;
    }

    /** @return iterable<string, array{string}> */
    public static function transports(): iterable
    {
        yield 'unix socket' => ['unix'];
        yield 'tcp' => ['tcp'];
    }

    private static function url(string $transport): string
    {
        return $transport === 'tcp' ? EmbeddedRedis::tcpUrl() : EmbeddedRedis::url();
    }

    private static function key(): string
    {
        return 'idle-closed:' . \bin2hex(\random_bytes(4));
    }

    private static function server(): PrivateRedis
    {
        return self::$private ??= PrivateRedis::start('idle-closed');
    }

    /** Kills the client's shared connection from another one, and gives its end of the stream time to arrive; returns the killed id. */
    private static function kill(Client $redis, string $url): int
    {
        $victim = $redis->sharedConnection()->clientId();
        $killer = Connection::connect($url);
        self::assertSame(1, $killer->command('CLIENT', 'KILL', 'ID', (string) $victim));
        $killer->close();
        Async::delay(0.01);

        return $victim;
    }

    #[DataProvider('transports')]
    public function testTheFirstCommandAfterCLIENTKILLOfTheIdleConnectionAnswersOnANewOne(string $transport): void
    {
        $url = self::url($transport);
        $redis = new Client($url);
        $k = self::key();
        self::assertTrue($redis->set($k, 'before'));
        $victim = self::kill($redis, $url);

        self::assertSame('before', $redis->command('GET', $k), 'the first command after the kill');
        self::assertNotSame($victim, $redis->sharedConnection()->clientId());
        self::assertSame(1, $redis->del($k));
    }

    #[DataProvider('transports')]
    public function testAPipelineAfterCLIENTKILLOfTheIdleConnectionAnswersOnANewOne(string $transport): void
    {
        $url = self::url($transport);
        $redis = new Client($url);
        $redis->command('PING');
        self::kill($redis, $url);

        self::assertSame(['a', 'b'], $redis->pipeline([['ECHO', 'a'], ['ECHO', 'b']]));
    }

    #[DataProvider('transports')]
    public function testACachedGetAfterCLIENTKILLOfTheIdleConnectionAnswersFromTheServer(string $transport): void
    {
        $url = self::url($transport);
        $redis = new Client(ClientConfig::fromUrl($url, cacheSize: 100));
        $k = self::key();
        $redis->set($k, 'v1');
        self::assertSame('v1', $redis->get($k));
        self::assertSame('v1', $redis->get($k), 'cached');
        $victim = self::kill($redis, $url);
        // Changed while nobody tracked it for this client: the cache must not answer.
        EmbeddedRedis::cli('SET', $k, 'v2');

        self::assertSame('v2', $redis->get($k), 'the first get after the kill');
        self::assertNotSame($victim, $redis->sharedConnection()->clientId());
        self::assertSame('v2', $redis->get($k));
        EmbeddedRedis::cli('SET', $k, 'v3');
        Async::delay(0.01);
        self::assertSame('v3', $redis->get($k), 'the new connection tracks the key again');
        $redis->del($k);
    }

    #[DataProvider('transports')]
    public function testTheFirstCommandAfterAServerRestartBetweenTwoCommandsAnswers(string $transport): void
    {
        $server = self::server();
        $redis = new Client($transport === 'tcp' ? $server->tcpUrl() : $server->url());
        self::assertSame('before', $redis->command('ECHO', 'before'));

        $server->restart();

        self::assertTrue($redis->set('k', 'after'), 'the first command after the restart');
        self::assertSame('after', $redis->command('GET', 'k'));
    }

    public function testACachedGetAfterAServerRestartAnswersFromTheNewServer(): void
    {
        $server = self::server();
        $redis = new Client(ClientConfig::fromUrl($server->tcpUrl(), cacheSize: 100));
        $redis->set('cached', 'old');
        self::assertSame('old', $redis->get('cached'));

        $server->restart();

        self::assertNull($redis->get('cached'), 'nothing is kept across the restart');
    }

    public function testTheFirstCommandAfterRedisClosedTheConnectionForItsIdleTimeoutAnswers(): void
    {
        $server = self::server();
        $server->cli('CONFIG', 'SET', 'timeout', '1');
        try {
            $redis = new Client($server->tcpUrl());
            self::assertSame('before', $redis->command('ECHO', 'before'));
            $victim = $redis->sharedConnection()->clientId();
            Async::delay(2.5); // Redis checks idle clients about once a second

            self::assertSame('after', $redis->command('ECHO', 'after'));
            self::assertNotSame($victim, $redis->sharedConnection()->clientId());
        } finally {
            $server->cli('CONFIG', 'SET', 'timeout', '0');
        }
    }

    public function testACommandLostAfterItWasSentFailsAndIsNotSentAgain(): void
    {
        // The fake server accepts one connection, cuts its reply and closes: a retry would end
        // in a ConnectException, not this.
        $server = FakeRedisServer::start('cut');
        try {
            $redis = new Client($server->url());

            $this->expectException(ConnectionLostException::class);
            $this->expectExceptionMessage('may or may not have run');
            $redis->command('GET', 'k');
        } finally {
            $server->stop();
        }
    }
}
