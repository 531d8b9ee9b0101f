<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

final class PreloadCommandTest extends TestCase
{
    public function testItListsTheFilesAnApplicationLoadsToServeTheRequestsGiven(): void
    {
        if (!ExampleApp::Slim->isInstalled()) {
            self::markTestSkipped('examples/slim is not installed: run scripts/install-frameworks');
        }
        $output = \tempnam(\sys_get_temp_dir(), 'bobbin-preload');

        [$status, , $stderr] = ServerProcess::runToCompletion(
            ['preload', ExampleApp::Slim->bobbinAppFile(), '--request=/health', '--request=/state', "--output=$output"],
            ['DATABASE_URL' => EmbeddedPostgres::connectionString()],
        );
        $script = (string) \file_get_contents($output);
        \unlink($output);

        self::assertSame(0, $status, $stderr);
        self::assertStringContainsString('GET /health → 200', $stderr);
        self::assertStringContainsString("/slim/slim/Slim/App.php'", $script);
        self::assertStringContainsString("/examples/slim/app.php'", $script);
        self::assertStringNotContainsString('/src/Cli/', $script, "bin/bobbin's own command-line code is not the application's");
    }
}
