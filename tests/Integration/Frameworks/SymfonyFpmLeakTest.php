<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\Frameworks\AppServer;
use Bobbin\Tests\Support\Frameworks\ExampleApp;

/** The reference: the same Symfony example under nginx + PHP-FPM passes the same suite. */
final class SymfonyFpmLeakTest extends LeakSuiteTestCase
{
    protected static function app(): ExampleApp
    {
        return ExampleApp::Symfony;
    }

    protected static function startServer(): AppServer
    {
        return AppServer::fpm(ExampleApp::Symfony);
    }

    protected static function cleanState(): array
    {
        return ['user' => null, 'config' => null, 'static' => null, 'session' => null, 'service' => null];
    }
}
