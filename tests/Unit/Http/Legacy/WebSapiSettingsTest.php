<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Http\Legacy;

use Bobbin\Http\Legacy\LegacyConfig;
use Bobbin\Http\Legacy\WebSapiSettings;
use PHPUnit\Framework\TestCase;

final class WebSapiSettingsTest extends TestCase
{
    public function testAPhpIniThatSaysNothingGivesPhpsOwnDefaultsForAWebSapi(): void
    {
        self::assertEquals(new WebSapiSettings(null, true, 30), WebSapiSettings::of([]));
    }

    public function testTheValuesOfAPhpIniAreReadAsPhpReadsThem(): void
    {
        self::assertEquals(
            new WebSapiSettings(4096, false, 60),
            WebSapiSettings::of(['output_buffering' => '4096', 'html_errors' => 'Off', 'max_execution_time' => '60']),
        );
        self::assertSame(0, WebSapiSettings::of(['output_buffering' => 'On'])->outputBuffering);
        self::assertNull(WebSapiSettings::of(['output_buffering' => 'Off'])->outputBuffering);
    }

    public function testAWorkerRunsAboutTwoScriptsPerCoreOverTheServerAndAtLeastTwo(): void
    {
        self::assertSame(4, LegacyConfig::defaultChildren(2, 1));
        self::assertSame(2, LegacyConfig::defaultChildren(2, 2));
        self::assertSame(2, LegacyConfig::defaultChildren(1, 4));
        self::assertSame(4, LegacyConfig::defaultChildren(8, 4));
    }
}
