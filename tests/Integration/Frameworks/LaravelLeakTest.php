<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** The Laravel example through Bobbin's adapter, in its default mode (one request at a time per worker). */
final class LaravelLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Laravel;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Laravel);
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null, 'locale' => 'en'];
    }
}
