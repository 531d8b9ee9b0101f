<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;

/**
 * The aircraft contract against apps/aircraft/public/index.php on nginx + PHP-FPM with GET
 * /aircraft/{id} cached in Redis (the client in blocking mode, one per request).
 */
final class FpmRedisCacheAircraftConformanceTest extends AircraftConformanceTestCase
{
    use RedisCacheChecks;

    private static ?FpmServer $server = null;

    public static function setUpBeforeClass(): void
    {
        // PHP-FPM keeps the environment it was started with (clear_env = no).
        \putenv('REDIS_URL=' . EmbeddedRedis::url());
        try {
            self::$server = FpmServer::start(EmbeddedPostgres::connectionString());
        } finally {
            \putenv('REDIS_URL');
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    protected static function port(): int
    {
        \assert(self::$server !== null);

        return self::$server->port;
    }
}
