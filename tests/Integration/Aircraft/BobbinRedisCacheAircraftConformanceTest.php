<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Redis\EmbeddedRedis;

/** The aircraft contract against apps/aircraft/server.php with GET /aircraft/{id} cached in Redis. */
final class BobbinRedisCacheAircraftConformanceTest extends AircraftConformanceTestCase
{
    use RedisCacheChecks;

    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(
            [],
            \dirname(__DIR__, 3) . '/apps/aircraft/server.php',
            ['DATABASE_URL' => EmbeddedPostgres::connectionString(), 'DATABASE_POOL_MAX' => '8', 'DATABASE_POOL_WAIT' => '2', 'REDIS_URL' => EmbeddedRedis::url()],
        );
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
