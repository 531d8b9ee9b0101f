<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Bobbin\Tests\Support\Frameworks\Requests;
use Bobbin\Tests\Support\HttpResponse;
use PHPUnit\Framework\TestCase;

/**
 * The leak suite (issue 19): an example application, served one way, must keep requests apart
 * as PHP-FPM does. Every example app implements the same routes (examples/slim/app.php lists
 * them): /probe/{id} logs in the X-User, puts the id in the session, waits (a timer or
 * pg_sleep through Bobbin's pool), then reports what the framework's long-lived services say
 * about the current request, route, user and session; /pollute sets user, session, config,
 * a cookie, a static property and a service's state; /state reports them to a client that
 * brings nothing.
 *
 * Each subclass names the app and how it is served; the same assertions run against nginx +
 * PHP-FPM serving the same app (the reference).
 */
abstract class LeakSuiteTestCase extends TestCase
{
    private const CLIENTS = 5;

    protected static ?AppServer $server = null;

    abstract protected static function app(): ExampleApp;

    abstract protected static function startServer(): AppServer;

    /**
     * The probe's fields this app and mode keep per request (all of them but a framework that
     * has no such thing, e.g. Slim's session).
     *
     * @return list<string>
     */
    protected static function probeFields(): array
    {
        return ['id', 'request', 'route', 'user', 'session'];
    }

    /**
     * The state /pollute sets that a later request must not see.
     *
     * @return array<string, mixed> field => the value a fresh request sees
     */
    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null];
    }

    public static function setUpBeforeClass(): void
    {
        if (!static::app()->isInstalled()) {
            self::markTestSkipped('examples/' . static::app()->value . ' is not installed: run scripts/install-frameworks');
        }
        static::$server = static::startServer();
    }

    public static function tearDownAfterClass(): void
    {
        static::$server?->stop();
        static::$server = null;
    }

    /** @param array<string, string> $headers */
    protected static function get(string $target, array $headers = [], string $method = 'GET'): HttpResponse
    {
        $server = static::$server;
        self::assertNotNull($server);

        return Requests::one($server->host, $server->port, $method, $target, $headers);
    }

    /** @return list<array<string, mixed>> */
    private static function probeConcurrently(string $wait): array
    {
        $server = static::$server;
        self::assertNotNull($server);
        $requests = [];
        for ($i = 1; $i <= self::CLIENTS; $i++) {
            $requests[] = ['GET', "/probe/$i?q=$i&wait=$wait&ms=150", ['X-User' => "user-$i"]];
        }
        $bodies = [];
        foreach (Requests::concurrently($server->host, $server->port, $requests) as $i => $response) {
            self::assertSame(200, $response->status, "probe $i on {$server->name}: {$response->body}\n{$server->log()}");
            $bodies[] = (array) $response->json();
        }

        return $bodies;
    }

    /** @param list<array<string, mixed>> $bodies */
    private static function assertEachSawOnlyItself(array $bodies, string $wait): void
    {
        $expected = [];
        $seen = [];
        foreach ($bodies as $index => $body) {
            $id = (string) ($index + 1);
            $own = ['id' => $id, 'request' => $id, 'route' => $id, 'sharedRoute' => $id, 'user' => "user-$id", 'session' => $id];
            foreach (static::probeFields() as $field) {
                $expected[$id][$field] = $own[$field];
                $seen[$id][$field] = $body[$field] ?? null;
            }
        }
        self::assertSame($expected, $seen, "concurrent requests waiting on $wait saw another request's state on " . static::$server?->name);
    }

    public function testConcurrentRequestsWaitingOnATimerEachSeeOnlyTheirOwnRequestRouteUserAndSession(): void
    {
        self::assertEachSawOnlyItself(self::probeConcurrently('timer'), 'a timer');
    }

    public function testConcurrentRequestsWaitingOnTheDatabaseEachSeeOnlyTheirOwnRequestRouteUserAndSession(): void
    {
        self::assertEachSawOnlyItself(self::probeConcurrently('db'), 'the database');
    }

    public function testStateOneRequestSetsIsAbsentFromTheNextRequest(): void
    {
        $polluted = self::get('/pollute', ['X-User' => 'intruder'], 'POST');
        self::assertSame(200, $polluted->status, $polluted->body);

        $next = self::get('/state');

        self::assertSame(200, $next->status, $next->body);
        $state = (array) $next->json();
        $clean = static::cleanState();
        self::assertSame($clean, \array_intersect_key($state, $clean), 'a request saw what the one before it set, on ' . static::$server?->name);
        foreach ($next->headers['set-cookie'] ?? [] as $cookie) {
            self::assertStringStartsNotWith('leak=', $cookie, 'a cookie set for one client went to the next');
        }
    }

    public function testAFailingRequestGetsAnErrorPageWithoutTheExceptionAndTheNextIsServed(): void
    {
        $failed = self::get('/fail');

        self::assertSame(500, $failed->status);
        self::assertStringNotContainsString('secret detail', $failed->body);
        self::assertStringNotContainsString('/etc/passwd', $failed->body);
        self::assertStringNotContainsString('.php', $failed->body);
        self::assertSame(200, self::get('/health')->status);
    }
}
