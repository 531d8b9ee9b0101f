<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** An application's PostgreSQL pool appears in /metrics and /status.json without any set-up. */
final class DatabasePoolMetricsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/database-app.php';

    private static ?MasterProcess $master = null;
    private static string $admin = '';

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(
            self::APP,
            ['--workers=2', '--job-workers=0', '--admin=127.0.0.1:0'],
            ['DATABASE_URL' => EmbeddedPostgres::connectionString()],
        );
        self::$admin = self::$master->waitForLog('/Admin on (\S+):/')[1];
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
    }

    public function testThePoolsConnectionsWaitsAndCountersAreSummedOverTheWorkers(): void
    {
        $master = self::$master;
        self::assertNotNull($master);
        // Eight overlapping requests: every worker's pool (4 connections at most) opens some.
        $handles = [];
        for ($i = 0; $i < 8; $i++) {
            $handles[] = \popen(\sprintf('curl -s %s', \escapeshellarg($master->url('/pg-sleep?s=0.3&tag=metrics'))), 'r');
        }
        foreach ($handles as $handle) {
            self::assertSame('slept', \stream_get_contents($handle));
            \pclose($handle);
        }

        $metrics = HttpGet::fetch(self::$admin, '/metrics')['body'];
        $pool = 'postgres ' . EmbeddedPostgres::connectionString();
        self::assertSame(8.0, self::value($metrics, 'bobbin_db_pool_acquisitions_total', $pool));
        self::assertSame(8.0, self::value($metrics, 'bobbin_db_pool_wait_seconds_count', $pool));
        self::assertSame(8.0, self::value($metrics, 'bobbin_db_pool_max_connections', $pool), 'two workers with 4 each');
        $idle = self::value($metrics, 'bobbin_db_pool_connections', $pool, 'idle');
        self::assertGreaterThanOrEqual(2.0, $idle, 'both workers kept what they opened');
        self::assertSame(0.0, self::value($metrics, 'bobbin_db_pool_connections', $pool, 'in_use'));

        $status = \json_decode(HttpGet::fetch(self::$admin, '/status.json')['body'], true);
        self::assertIsArray($status);
        self::assertSame(['open' => (int) $idle, 'idle' => (int) $idle, 'inUse' => 0, 'waiting' => 0], $status['pools'][$pool] ?? null);
    }

    private static function value(string $metrics, string $name, string $pool, ?string $state = null): float
    {
        foreach (\explode("\n", $metrics) as $line) {
            if (!\str_starts_with($line, $name . '{') || !\str_contains($line, 'pool="' . \addcslashes($pool, '"\\') . '"')) {
                continue;
            }
            if ($state !== null && !\str_contains($line, 'state="' . $state . '"')) {
                continue;
            }

            return (float) \substr($line, (int) \strrpos($line, ' ') + 1);
        }
        self::fail("no $name for $pool in:\n$metrics");
    }
}
