<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Aircraft;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * /sleep runs its two statements on one pool connection. When it took the pool twice, its second
 * statement queued behind every request that arrived during its first: with one connection, the
 * first of two overlapping requests was answered only after the second one's sleep too (and with
 * a short DATABASE_POOL_WAIT, 503 after its second of work).
 */
final class BobbinSleepUnderPoolPressureTest extends TestCase
{
    private ?ServerProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->stop();
        $this->server = null;
    }

    public function testWithOneConnectionTwoOverlappingSleepsAreBothAnsweredOneAfterTheOther(): void
    {
        $this->server = ServerProcess::start(['--workers=1'], \dirname(__DIR__, 3) . '/apps/aircraft/server.php', [
            'DATABASE_URL' => EmbeddedPostgres::connectionString(),
            'DATABASE_POOL_MAX' => '1',
            'DATABASE_POOL_WAIT' => '5',
        ]);
        $request = "GET /sleep HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";

        $started = \microtime(true);
        $first = new RawClient($this->server->address);
        $first->send($request);
        \usleep(300_000); // the first request's pg_sleep(1) is running now
        $second = new RawClient($this->server->address);
        $second->send($request);
        $firstResponse = $first->readResponse();
        $firstDone = \microtime(true) - $started;
        $secondResponse = $second->readResponse();
        $secondDone = \microtime(true) - $started;

        self::assertSame(200, $firstResponse['status'] ?? null, $firstResponse['body'] ?? 'no response');
        self::assertSame(200, $secondResponse['status'] ?? null, $secondResponse['body'] ?? 'no response');
        self::assertLessThan(1.7, $firstDone, 'the first request kept its connection for its second statement');
        self::assertGreaterThan(1.9, $secondDone, 'the second request waited for the first one\'s connection');
    }
}
