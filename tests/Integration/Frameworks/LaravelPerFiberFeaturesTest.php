<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** examples/laravel's own feature tests in the per-fiber context mode. */
final class LaravelPerFiberFeaturesTest extends ExampleAppFeaturesTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Laravel;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Laravel, 'concurrent');
    }
}
