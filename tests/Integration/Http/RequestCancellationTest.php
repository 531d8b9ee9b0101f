<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * A request's deadline and its client's departure cancel what the request waits for: the
 * statement of a timed-out or abandoned request stops on the database server too.
 */
final class RequestCancellationTest extends TestCase
{
    private static ?ServerProcess $server = null;
    /** @var \PgSql\Connection|null */
    private static $observer = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = ServerProcess::start(
            ['--workers=1', '--request-timeout=1'],
            __DIR__ . '/../../Support/Http/database-app.php',
            ['DATABASE_URL' => EmbeddedPostgres::connectionString()],
        );
        $observer = \pg_connect(EmbeddedPostgres::connectionString(), \PGSQL_CONNECT_FORCE_NEW);
        self::assertNotFalse($observer);
        self::$observer = $observer;
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
        if (self::$observer !== null) {
            \pg_close(self::$observer);
            self::$observer = null;
        }
    }

    /** Seconds until no backend runs the statement tagged $tag any more (or INF after $timeout). */
    private static function secondsUntilGone(string $tag, float $timeout = 5.0): float
    {
        $started = \microtime(true);
        do {
            $result = \pg_query_params(
                self::$observer,
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE \$1",
                ['%pg_sleep%' . $tag . '%'],
            );
            if ((int) \pg_fetch_result($result, 0, 0) === 0) {
                return \microtime(true) - $started;
            }
            \usleep(20000);
        } while (\microtime(true) - $started < $timeout);

        return \INF;
    }

    private static function awaitRunning(string $tag): void
    {
        $deadline = \microtime(true) + 3.0;
        while (\microtime(true) < $deadline) {
            $result = \pg_query_params(self::$observer, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE \$1", ['%pg_sleep%' . $tag . '%']);
            if ((int) \pg_fetch_result($result, 0, 0) > 0) {
                return;
            }
            \usleep(20000);
        }
        self::fail("The statement $tag never started");
    }

    public function testTheStatementOfARequestPastItsTimeoutIsCancelledOnTheServer(): void
    {
        $client = new RawClient((string) self::$server?->address);
        $client->send("GET /pg-sleep?s=10&tag=timedout HTTP/1.1\r\nHost: a\r\n\r\n");
        self::awaitRunning('timedout');

        self::assertSame(503, $client->readResponse()['status'] ?? null);
        self::assertLessThan(1.0, self::secondsUntilGone('timedout'), 'pg_sleep(10) still ran a second after the request timed out');
    }

    public function testTheStatementOfARequestWhoseClientLeftIsCancelledOnTheServer(): void
    {
        $client = new RawClient((string) self::$server?->address);
        $client->send("GET /pg-sleep?s=10&tag=abandoned HTTP/1.1\r\nHost: a\r\n\r\n");
        self::awaitRunning('abandoned');

        $client->close();

        self::assertLessThan(1.0, self::secondsUntilGone('abandoned'), 'pg_sleep(10) still ran a second after its client left');
    }

    public function testARequestThatFinishesInTimeIsNotCancelledAndTheNextOneIsServed(): void
    {
        $client = new RawClient((string) self::$server?->address);
        $client->send("GET /pg-sleep?s=0.2&tag=intime HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('slept', $client->readResponse()['body'] ?? null);
        $client->send("GET /pg-sleep?s=0.1&tag=next HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('slept', $client->readResponse()['body'] ?? null);
        self::assertStringNotContainsString('[error]', (string) self::$server?->log());
    }
}
