<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Bobbin\Tests\Support\Frameworks\Requests;

/**
 * The Laravel example in the per-fiber context mode (BOBBIN_CONCURRENCY=concurrent): no gate,
 * its requests run at the same time in one worker, and FiberContext keeps each one's request,
 * route parameters, user, session, config and database session apart.
 */
final class LaravelPerFiberLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Laravel;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Laravel, 'concurrent');
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null, 'locale' => 'en'];
    }

    public function testRequestsThatWaitRunAtTheSameTimeInOneWorker(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $requests = [];
        for ($i = 1; $i <= 5; $i++) {
            $requests[] = ['GET', "/probe/$i?q=$i&wait=db&ms=400", ['X-User' => "user-$i"]];
        }
        $started = \microtime(true);

        $responses = Requests::concurrently($server->host, $server->port, $requests);
        $elapsed = \microtime(true) - $started;

        self::assertSame([200, 200, 200, 200, 200], \array_map(static fn ($r): int => $r->status, $responses));
        self::assertLessThan(1.2, $elapsed, 'five 0.4 s waits took one after another');
    }
}
