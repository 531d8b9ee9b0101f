<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/**
 * Slim served with concurrent requests (no gate): request, route arguments (from the handler's
 * $args and the routing results) and the user attribute travel in the request, so they stay
 * apart; statics do not (the one rule, docs/FRAMEWORKS.md), and Slim's shared Route object
 * shows the last routed request's arguments.
 */
final class SlimLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Slim;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Slim, 'concurrent');
    }

    protected static function probeFields(): array
    {
        return ['id', 'request', 'route', 'user'];
    }

    protected static function cleanState(): array
    {
        return ['user' => null]; // a static property is shared by concurrent requests: not isolated in this mode
    }

    public function testSlimsSharedRouteObjectShowsAnotherRequestsArgumentsUnderConcurrency(): void
    {
        $server = self::$server;
        self::assertNotNull($server);
        $requests = [];
        for ($i = 1; $i <= 4; $i++) {
            $requests[] = ['GET', "/probe/$i?q=$i&wait=timer&ms=200", []];
        }
        $mismatched = 0;
        foreach (\Bobbin\Tests\Support\Frameworks\Requests::concurrently($server->host, $server->port, $requests) as $i => $response) {
            $body = (array) $response->json();
            $mismatched += $body['sharedRoute'] !== (string) ($i + 1) ? 1 : 0;
        }

        self::assertGreaterThan(0, $mismatched, 'RouteContext::getRoute() kept each request\'s arguments: docs/FRAMEWORKS.md is wrong');
    }
}
