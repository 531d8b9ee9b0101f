<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\Connection;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use PHPUnit\Framework\TestCase;

/** get() from the client-side cache (CLIENT TRACKING), dropped by the server's invalidations. */
final class ClientSideCachingTest extends TestCase
{
    public function testAValueReadOnceIsServedFromTheCacheUntilAnotherClientChangesIt(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 100));
        $other = Connection::connect(EmbeddedRedis::url());
        $k = 'cache:' . \bin2hex(\random_bytes(4));
        $other->set($k, 'v1');

        self::assertSame('v1', $redis->get($k));
        self::assertSame('v1', $redis->get($k));
        self::assertSame(1, $redis->cacheStatistics()['hits']);
        $other->set($k, 'v2');
        Async::delay(0.01); // the invalidation travels

        self::assertSame('v2', $redis->get($k));
        self::assertSame(1, $redis->cacheStatistics()['invalidations']);
        self::assertSame('v2', $redis->get($k));
        self::assertSame(2, $redis->cacheStatistics()['hits']);
    }

    public function testAMissingKeyIsCachedAsMissingAndItsCreationInvalidatesIt(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 100));
        $other = Connection::connect(EmbeddedRedis::url());
        $k = 'cache:' . \bin2hex(\random_bytes(4));

        self::assertNull($redis->get($k));
        self::assertNull($redis->get($k));
        $other->set($k, 'now');
        Async::delay(0.01);
        self::assertSame('now', $redis->get($k));
    }

    public function testThisClientsOwnWriteIsSeenByItsNextRead(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 100));
        $k = 'cache:' . \bin2hex(\random_bytes(4));
        $redis->set($k, 'old');
        self::assertSame('old', $redis->get($k));

        $redis->set($k, 'new');
        self::assertSame('new', $redis->get($k), 'no delay: read your own write');
        $redis->del($k);
        self::assertNull($redis->get($k));
    }

    public function testAFlushDropsEverything(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 100));
        $k = 'cache:' . \bin2hex(\random_bytes(4));
        $redis->set($k, 'x');
        $redis->get($k);
        self::assertSame(1, $redis->cacheStatistics()['entries']);

        EmbeddedRedis::cli('FLUSHDB');
        Async::delay(0.01);
        self::assertNull($redis->get($k));
    }

    public function testTheCacheKeepsAtMostItsSize(): void
    {
        $redis = new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 10));
        for ($i = 0; $i < 30; $i++) {
            $redis->get("cache:size:$i");
        }

        self::assertSame(10, $redis->cacheStatistics()['entries']);
    }
}
