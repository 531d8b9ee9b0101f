<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** The aircraft contract against apps/aircraft/server.php on bin/bobbin serve, with MariaDB behind it. */
final class BobbinMariadbAircraftConformanceTest extends AircraftConformanceTestCase
{
    private static ?ServerProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        MariadbSchema::apply();
        self::$server = ServerProcess::start(
            [],
            \dirname(__DIR__, 3) . '/apps/aircraft/server.php',
            ['DATABASE_URL' => EmbeddedMysql::url(), 'DATABASE_POOL_MAX' => '8', 'DATABASE_POOL_WAIT' => '2'],
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

    protected static function stopDatabase(): void
    {
        EmbeddedMysql::stop();
    }

    protected static function startDatabase(): void
    {
        EmbeddedMysql::start();
    }
}
