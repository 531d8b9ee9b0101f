<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** The reference: the same Slim example under nginx + PHP-FPM passes the same suite. */
final class SlimFpmLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Slim;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::fpm(ExampleApp::Slim);
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
