<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\FpmServer;

/** The aircraft contract against apps/aircraft/public/index.php on nginx + PHP-FPM. */
final class FpmAircraftConformanceTest extends AircraftConformanceTestCase
{
    private static ?FpmServer $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = FpmServer::start(EmbeddedPostgres::connectionString());
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
