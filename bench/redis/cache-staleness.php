<?php

declare(strict_types=1);

/*
 * How fresh the client-side cache is after another connection's write (docs/REDIS.md,
 * "Client-side caching"): phpredis (php8.2-redis) writes a new value, and at once Bobbin's cached
 * Client reads it — get() with nothing in flight, get() while four fibers keep commands in
 * flight, and getFresh(). Counts the reads that returned the old value and, for those, how long
 * get() took to return the new one (tried every ~20 µs: with nothing in flight every get() polls
 * the socket, so that is when the invalidation arrived; in flight the loop gets a turn too).
 *
 *   php bench/redis/cache-staleness.php [--rounds=3000] [--url=redis://…]
 *
 * A measurement of a guarantee, not of speed: a second or two, no lock needed. Uses
 * BOBBIN_TEST_REDIS_URL or the checkout's embedded Redis (scripts/redis start).
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;
use Bobbin\Redis\ClientConfig;
use Bobbin\Redis\ConnectionConfig;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

if (!\extension_loaded('redis')) {
    \fwrite(\STDERR, "phpredis is not installed (scripts/install-deps installs php8.2-redis)\n");
    exit(1);
}
$options = \getopt('', ['rounds::', 'url::']);
$rounds = \max(1, (int) ($options['rounds'] ?? 3000));
$url = (string) ($options['url'] ?? (\getenv('BOBBIN_TEST_REDIS_URL') ?: \trim((string) \shell_exec(\escapeshellarg(\dirname(__DIR__, 2) . '/scripts/redis') . ' start >/dev/null 2>&1 && ' . \escapeshellarg(\dirname(__DIR__, 2) . '/scripts/redis') . ' url'))));

$config = ConnectionConfig::fromUrl($url);
$writer = new \Redis();
$config->unixSocket !== null ? $writer->connect($config->unixSocket) : $writer->connect($config->host, $config->port);
if ($config->password !== null) {
    $writer->auth($config->user === null ? [$config->password] : [$config->user, $config->password]);
}
$writer->select($config->database);
$redis = new Client(ClientConfig::fromUrl($url, cacheSize: 1_000));

/** @param 'idle'|'in flight'|'getFresh' $mode */
$measure = static function (string $mode) use ($redis, $writer, $rounds): void {
    $key = 'staleness:' . \bin2hex(\random_bytes(4));
    $writer->set($key, 'v0');
    $redis->get($key);
    $stop = false;
    $busy = [];
    if ($mode === 'in flight') {
        for ($i = 0; $i < 4; $i++) {
            $busy[] = Async::run(static function () use ($redis, &$stop): void {
                while (!$stop) {
                    $redis->command('ECHO', 'busy');
                }
            });
        }
        Async::delay(0.01);
    }
    $stale = 0;
    $late = [];
    for ($round = 1; $round <= $rounds; $round++) {
        $writer->set($key, "v$round");
        $started = \hrtime(true);
        if (($mode === 'getFresh' ? $redis->getFresh($key) : $redis->get($key)) === "v$round") {
            continue;
        }
        $stale++;
        while ($redis->get($key) !== "v$round") {
            // The CPU given up between tries: a reader spinning on it can keep redis-server, on
            // a busy machine, from writing the push until the scheduler's next tick.
            \usleep(20);
            if ($busy !== []) {
                Async::delay(0); // the fibers in flight read what arrived
            }
        }
        $late[] = (\hrtime(true) - $started) / 1e3;
    }
    $stop = true;
    Future::awaitAll($busy);
    \sort($late);
    \printf(
        "%-9s %6d reads after a write: %5d old (%.2f %%); the new value after: median %s µs, max %s µs\n",
        $mode,
        $rounds,
        $stale,
        100 * $stale / $rounds,
        $late === [] ? '-' : \number_format($late[\intdiv(\count($late), 2)]),
        $late === [] ? '-' : \number_format((float) \end($late)),
    );
    $writer->del($key);
};

Async::run(static function () use ($measure): void {
    foreach (['idle', 'in flight', 'getFresh'] as $mode) {
        $measure($mode);
    }
})->await();
$redis->close();
