<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** The aircraft contract against apps/aircraft/public/index.php on nginx + PHP-FPM, with MariaDB behind it. */
final class FpmMariadbAircraftConformanceTest extends AircraftConformanceTestCase
{
    private static ?FpmServer $server = null;

    public static function setUpBeforeClass(): void
    {
        MariadbSchema::apply();
        self::$server = FpmServer::start(EmbeddedMysql::url());
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
