<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** The reference: the same Laravel example under nginx + PHP-FPM passes the same suite. */
final class LaravelFpmLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Laravel;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::fpm(ExampleApp::Laravel);
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null, 'locale' => 'en'];
    }
}
