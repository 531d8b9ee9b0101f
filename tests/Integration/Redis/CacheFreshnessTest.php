<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Redis;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;
use Bobbin\Tests\Support\Redis\Phpredis;
use PHPUnit\Framework\TestCase;

/**
 * What the client-side cache promises after another connection's write (issue 35, item 5),
 * checked against phpredis as the writer: getFresh() always sees it; get() sees it once its
 * invalidation has reached this process, whether or not commands are in flight.
 */
final class CacheFreshnessTest extends TestCase
{
    private const ROUNDS = 1_000;

    private static function cachedClient(): Client
    {
        return new Client(ClientConfig::fromUrl(EmbeddedRedis::url(), cacheSize: 1_000));
    }

    private static function key(): string
    {
        return 'fresh:' . \bin2hex(\random_bytes(4));
    }

    /**
     * Fibers keeping commands in flight on the shared connection while the test's own code runs
     * without giving the loop a turn.
     *
     * @param-out bool $stop
     * @return list<Future<null>>
     */
    private static function keepBusy(Client $redis, ?bool &$stop): array
    {
        $stop = false;
        $busy = [];
        for ($i = 0; $i < 4; $i++) {
            $busy[] = Async::run(static function () use ($redis, &$stop): void {
                while (!$stop) {
                    $redis->command('ECHO', 'busy');
                }
            });
        }
        Async::delay(0.005);

        return $busy;
    }

    public function testACachedReadWithCommandsInFlightSeesAnInvalidationThatHasArrived(): void
    {
        $redis = self::cachedClient();
        $writer = Phpredis::connect(EmbeddedRedis::url());
        $k = self::key();
        $writer->set($k, 'v1');
        self::assertSame('v1', $redis->get($k));
        self::assertSame('v1', $redis->get($k));
        $busy = self::keepBusy($redis, $stop);
        try {
            self::assertGreaterThan(0, $redis->sharedConnection()->inFlight());

            $writer->set($k, 'v2');
            \usleep(5_000); // the push reaches this process's socket; the loop does not run
            self::assertSame('v2', $redis->get($k), 'an invalidation waiting in the socket is not overtaken by the cache');
        } finally {
            $stop = true;
            Future::awaitAll($busy);
        }
    }

    public function testACachedReadWithNothingInFlightSeesAnInvalidationThatHasArrived(): void
    {
        $redis = self::cachedClient();
        $writer = Phpredis::connect(EmbeddedRedis::url());
        $k = self::key();
        $writer->set($k, 'v1');
        self::assertSame('v1', $redis->get($k));
        self::assertSame(0, $redis->sharedConnection()->inFlight());

        $writer->set($k, 'v2');
        \usleep(5_000);
        self::assertSame('v2', $redis->get($k));
    }

    public function testGetFreshReadsPastTheCacheAndRefreshesIt(): void
    {
        $redis = self::cachedClient();
        $k = self::key();
        EmbeddedRedis::cli('SET', $k, 'v1');
        self::assertSame('v1', $redis->get($k));
        self::assertSame('v1', $redis->get($k));
        $before = $redis->cacheStatistics();

        self::assertSame('v1', $redis->getFresh($k));
        $after = $redis->cacheStatistics();
        self::assertSame($before['hits'], $after['hits'], 'not answered from the cache');
        self::assertSame($before['misses'], $after['misses'], 'a read past the cache is no miss');
        self::assertSame('v1', $redis->get($k));
        self::assertSame($before['hits'] + 1, $redis->cacheStatistics()['hits'], 'its reply is cached');
        self::assertSame('v1', (new Client(EmbeddedRedis::url()))->getFresh($k), 'without a cache: a plain GET');
    }

    /** Seeded: a failure names its seed; BOBBIN_TEST_SEED=N reruns it. */
    public function testEveryReadThroughTheCacheAfterAPhpredisWriteReturnsTheNewValue(): void
    {
        $seed = (int) (\getenv('BOBBIN_TEST_SEED') ?: \random_int(1, \PHP_INT_MAX));
        $random = new \Random\Randomizer(new \Random\Engine\Mt19937($seed));
        $redis = self::cachedClient();
        $writer = Phpredis::connect(EmbeddedRedis::url());
        $keys = [self::key(), self::key(), self::key()];
        foreach ($keys as $k) {
            $redis->get($k); // tracked (cached as missing) from the start
        }
        $busy = [];
        $stop = false;
        for ($round = 0; $round < self::ROUNDS; $round++) {
            if ($round === self::ROUNDS / 2) {
                $busy = self::keepBusy($redis, $stop); // the second half with commands in flight
            }
            $k = $keys[$random->getInt(0, \count($keys) - 1)];
            if ($random->getInt(0, 9) === 0) {
                $writer->del($k);
                $expected = null;
            } else {
                $length = $random->getInt(0, 64);
                $expected = $length === 0 ? '' : $random->getBytes($length);
                $writer->set($k, $expected);
            }

            $where = "seed $seed, round $round";
            self::assertSame($expected, $redis->getFresh($k), "getFresh() after the write ($where)");
            self::assertSame($expected, $redis->get($k), "get() right after getFresh() ($where)");
        }
        $stop = true;
        Future::awaitAll($busy);
        self::assertGreaterThan(0, $redis->cacheStatistics()['hits']);
    }
}
