<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** The Symfony example through Bobbin's adapter, in its default mode (one request at a time per worker). */
final class SymfonyLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Symfony;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::bobbin(ExampleApp::Symfony);
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null, 'service' => null];
    }
}
