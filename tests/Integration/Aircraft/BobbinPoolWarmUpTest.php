<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\HttpClient;
use PHPUnit\Framework\TestCase;

/** DATABASE_POOL_MIN: connections a Bobbin worker opens before its first request. */
final class BobbinPoolWarmUpTest extends TestCase
{
    private const APPLICATION_NAME = 'bobbin_pool_warm_up_test';
    private ?ServerProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
        $this->server = null;
    }

    public function testAWorkerOpensTheMinimumOfConnectionsBeforeAnyRequest(): void
    {
        $this->server = ServerProcess::start(['--workers=1'], \dirname(__DIR__, 3) . '/apps/aircraft/server.php', [
            'DATABASE_URL' => EmbeddedPostgres::connectionString() . ' application_name=' . self::APPLICATION_NAME,
            'DATABASE_POOL_MIN' => '3',
            'DATABASE_POOL_MAX' => '8',
        ]);

        $deadline = \microtime(true) + 5.0;
        do {
            $sessions = (int) EmbeddedPostgres::psql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" . self::APPLICATION_NAME . "'",
            );
        } while ($sessions < 3 && \microtime(true) < $deadline && \usleep(20_000) === null);

        self::assertSame(3, $sessions, 'sessions open before the first request');
    }

    public function testAWorkerStartsAndAnswers503WhenTheDatabaseIsDownAtStart(): void
    {
        // Nothing listens on port 1: the warm-up fails, the worker logs it and serves anyway.
        $this->server = ServerProcess::start([], \dirname(__DIR__, 3) . '/apps/aircraft/server.php', [
            'DATABASE_URL' => 'host=127.0.0.1 port=1 dbname=none user=none connect_timeout=1',
            'DATABASE_POOL_MIN' => '2',
            'DATABASE_POOL_WAIT' => '1',
        ]);

        $response = (new HttpClient('127.0.0.1', $this->server->port))->request('GET', '/aircraft/1');

        self::assertSame(503, $response->status);
        self::assertStringContainsString('Could not open DATABASE_POOL_MIN=2 connections at start', $this->server->log());
    }
}
