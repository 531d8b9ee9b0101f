<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\HttpClient;

/**
 * The aircraft contract on nginx + PHP-FPM with DATABASE_PERSISTENT=1: each FPM child keeps one
 * pg_pconnect() session across requests.
 */
final class FpmPersistentAircraftConformanceTest extends AircraftConformanceTestCase
{
    private const APPLICATION_NAME = 'bobbin_fpm_persistent_test';
    private static ?FpmServer $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = FpmServer::start(
            EmbeddedPostgres::connectionString() . ' application_name=' . self::APPLICATION_NAME,
            ['--persistent'],
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

    public function testRequestsReuseOneSessionPerFpmChild(): void
    {
        $client = new HttpClient('127.0.0.1', self::port());
        for ($i = 0; $i < 30; $i++) {
            self::assertSame(404, $client->request('GET', '/aircraft/' . \PHP_INT_MAX)->status);
        }

        $sessions = (int) EmbeddedPostgres::psql(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" . self::APPLICATION_NAME . "'",
        );
        self::assertGreaterThan(0, $sessions, 'sessions stay open after their requests');
        self::assertLessThanOrEqual(4, $sessions, 'at most one session per FPM child (4 children)');
    }
}
