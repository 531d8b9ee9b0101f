<?php

declare(strict_types=1);

/*
 * The aircraft application as an APP_FILE for `bin/bobbin serve`: built once per worker, with a
 * pool of non-blocking PostgreSQL (or, for a mysql:// or mariadb:// DATABASE_URL, MySQL/MariaDB)
 * connections shared by every request the worker serves; with REDIS_URL, GET /aircraft/{id}
 * cached in Redis.
 */

use Bobbin\Apps\Aircraft\AircraftConfig;
use Bobbin\Apps\Aircraft\AircraftServices;
use Bobbin\Apps\Aircraft\Http\AircraftApplication;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Log\RateLimitedLogger;
use Bobbin\Log\StderrLogger;
use Bobbin\Mysql\ConnectionPool as MysqlPool;
use Bobbin\Mysql\PoolConfig as MysqlPoolConfig;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Redis\Client as RedisClient;

// Run by an installed vendor/bin/bobbin (bench/peers/build's, or an application's), the project's
// autoloader already knows this namespace; the checkout's own (with its dev dependencies) would
// only add a second one.
if (!\class_exists(AircraftConfig::class)) {
    require_once \dirname(__DIR__, 2) . '/vendor/autoload.php';
}

$config = AircraftConfig::fromEnvironment(\getenv());
$logger = new RateLimitedLogger(new StderrLogger());
$pool = $config->usesMysql()
    ? new MysqlPool(MysqlPoolConfig::fromUrl(
        $config->databaseUrl,
        minSize: $config->poolMin,
        maxSize: $config->poolMax,
        acquireTimeout: $config->poolWait,
    ))
    : new ConnectionPool(PoolConfig::fromConnectionString(
        $config->databaseUrl,
        minSize: $config->poolMin,
        maxSize: $config->poolMax,
        acquireTimeout: $config->poolWait,
    ));
if ($config->poolMin > 0) {
    // Connect before the first request rather than under it; a database that is down now
    // must not keep the worker from starting (requests get 503 until it is back).
    try {
        $pool->warmUp(new TimeoutCancellation($config->poolWait));
    } catch (\Throwable $e) {
        $logger->warning('Could not open DATABASE_POOL_MIN={min} connections at start: {message}', ['min' => $config->poolMin, 'message' => $e->getMessage()]);
    }
}

// One pipelined Redis connection per worker, shared by its requests (opened on first use).
$redis = $config->redisUrl === null ? null : new RedisClient($config->redisUrl);

return AircraftServices::container(static fn () => $pool, $logger, $redis === null ? null : static fn () => $redis)
    ->get(AircraftApplication::class);
