<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** examples/symfony's own feature tests under Bobbin (its default mode). */
final class SymfonyFeaturesTest extends ExampleAppFeaturesTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Symfony;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Symfony);
    }
}
