<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** Slim behind OneRequestAtATime (BOBBIN_CONCURRENCY=one) with its static property restored. */
final class SlimOneAtATimeLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Slim;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Slim, 'one');
    }

    protected static function probeFields(): array
    {
        return ['id', 'request', 'route', 'sharedRoute', 'user'];
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'static' => null];
    }
}
