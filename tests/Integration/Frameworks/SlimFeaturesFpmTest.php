<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** examples/slim's own feature tests under nginx + PHP-FPM. */
final class SlimFeaturesFpmTest extends ExampleAppFeaturesTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Slim;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::fpm(ExampleApp::Slim);
    }
}
