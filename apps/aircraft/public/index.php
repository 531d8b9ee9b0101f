<?php

declare(strict_types=1);

/*
 * The aircraft application as a PHP-FPM front controller (nginx rewrites every path here).
 * The same classes as server.php; the handler runs in a fiber and the loop is driven until it
 * completes. PHP-FPM keeps no state between requests, so each request connects anew — or, with
 * DATABASE_PERSISTENT=1, reuses one persistent connection per FPM child.
 */

use Bobbin\Apps\Aircraft\AircraftConfig;
use Bobbin\Apps\Aircraft\AircraftServices;
use Bobbin\Apps\Aircraft\Http\AircraftApplication;
use Bobbin\Http\Sapi\SapiRunner;
use Bobbin\Log\StderrLogger;
use Bobbin\Mysql\ConnectionPool as MysqlPool;
use Bobbin\Mysql\PoolConfig as MysqlPoolConfig;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Redis\Client as RedisClient;

require_once \dirname(__DIR__, 3) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

$logger = new StderrLogger(stream: \fopen('php://stderr', 'w'));
try {
    $config = AircraftConfig::fromEnvironment(\getenv());
} catch (\Throwable $e) {
    $logger->critical('Bad configuration: {message}', ['message' => $e->getMessage()]);
    \http_response_code(500);
    \header('Content-Type: application/json');
    echo '{"error":"The server is misconfigured"}';

    return;
}
// One request runs one statement at a time, so one connection is enough. Unnamed statements:
// preparing costs a round trip that a connection living for one request never earns back.
$pool = $config->usesMysql()
    ? new MysqlPool(MysqlPoolConfig::fromUrl($config->databaseUrl, maxSize: 1, acquireTimeout: $config->poolWait, statementCacheSize: 0))
    : new ConnectionPool(PoolConfig::fromConnectionString(
        $config->databaseUrl,
        maxSize: 1,
        acquireTimeout: $config->poolWait,
        statementCacheSize: 0,
        persistent: $config->persistentConnection,
    ));
// With REDIS_URL, a Redis client for this request too, in blocking mode (each call drives the
// loop until its reply is in); it connects only if the request reads or writes the cache.
$redis = $config->redisUrl === null ? null : new RedisClient($config->redisUrl);
try {
    (new SapiRunner())->run(
        AircraftServices::container(static fn () => $pool, $logger, $redis === null ? null : static fn () => $redis)
            ->get(AircraftApplication::class),
    );
} finally {
    $pool->close();
    $redis?->close();
}
