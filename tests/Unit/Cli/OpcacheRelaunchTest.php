<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Cli;

use Bobbin\Cli\OpcacheRelaunch;
use PHPUnit\Framework\TestCase;

final class OpcacheRelaunchTest extends TestCase
{
    protected function setUp(): void
    {
        if (!\extension_loaded('Zend OPcache') || \filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
            self::markTestSkipped('needs opcache loaded and off for the CLI, as in a stock PHP');
        }
    }

    public function testServeIsRelaunchedWithOpcacheAndTheJit(): void
    {
        $php = OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php', '--workers=2'], []);

        self::assertNotNull($php);
        self::assertContains('opcache.enable_cli=1', $php);
        self::assertContains('opcache.jit=tracing', $php);
        self::assertSame(['/bin/bobbin', 'serve', 'app.php', '--workers=2'], \array_slice($php, -4));
    }

    public function testALegacyWorkerIsRelaunchedWithOpcacheButNotTheJitOnEitherRunner(): void
    {
        $perRequest = OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', '--legacy', '--legacy-runner=fork', '--legacy-docroot=/srv/wp'], []);
        $sharedState = OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php', '--legacy', '--legacy-shared-state'], []);
        $pool = OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', '--legacy', '--legacy-runner=pool', '--legacy-docroot=/srv/wp'], []);

        self::assertSame(['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=off', '/bin/bobbin', 'serve', '--legacy', '--legacy-runner=fork', '--legacy-docroot=/srv/wp'], $perRequest);
        self::assertNotNull($sharedState);
        self::assertContains('opcache.jit=tracing', $sharedState);
        // With the pool too: the pool's own processes have the JIT (LegacyPool), the worker not.
        self::assertNotNull($pool);
        self::assertContains('opcache.jit=off', $pool);
    }

    public function testItIsNotRelaunchedWhenSwitchedOffOrAlreadyRelaunchedOrNotServing(): void
    {
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php', '--no-opcache'], []));
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php', '--opcache=0'], []));
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php'], ['BOBBIN_OPCACHE' => '0']));
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php'], ['BOBBIN_OPCACHE_RELAUNCHED' => '1']));
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['status', '--pid-file=x'], []));
        self::assertNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', '--help'], []));
    }

    public function testTheCommandLineWinsOverTheEnvironment(): void
    {
        self::assertNotNull(OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php', '--opcache'], ['BOBBIN_OPCACHE' => 'off']));
    }

    public function testThePhpOptionsOfTheCommandLineAreTheOnesBeforeTheScript(): void
    {
        $arguments = ['serve', 'app.php', '--workers=2'];

        self::assertSame(['-d', 'memory_limit=1G', '-dprecision=11', '-c', '/etc/my.ini'], OpcacheRelaunch::phpOptionsOf(['php', '-d', 'memory_limit=1G', '-dprecision=11', '-c', '/etc/my.ini', 'bin/bobbin', ...$arguments], 3));
        self::assertSame([], OpcacheRelaunch::phpOptionsOf(['/usr/bin/php', 'vendor/bin/bobbin', ...$arguments], 3));
        self::assertSame(['-n'], OpcacheRelaunch::phpOptionsOf(['php', '-n', '-f', 'bin/bobbin', '--', ...$arguments], 3));
        self::assertSame([], OpcacheRelaunch::phpOptionsOf(['weird'], 3));
    }

    public function testTheUsersPhpOptionsComeAfterBobbinsSettingsSoThatTheUsersWin(): void
    {
        $php = OpcacheRelaunch::argumentsFor('/bin/bobbin', ['serve', 'app.php'], [], ['-d', 'opcache.jit=disable']);

        self::assertNotNull($php);
        self::assertSame(['-d', 'opcache.jit=disable', '/bin/bobbin', 'serve', 'app.php'], \array_slice($php, -5));
        self::assertContains('opcache.jit=tracing', \array_slice($php, 0, -5));
    }

    public function testTheUsersOwnSettingsAreTheDashDOptionsWithoutTheOnesTheRelaunchPutFirst(): void
    {
        $arguments = ['serve', '--legacy', 'app.php'];
        $relaunched = ['php', '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=off', '-d', 'memory_limit=1G', '-dprecision=11', '-c', '/etc/my.ini', 'bin/bobbin', ...$arguments];
        $byHand = ['php', '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=off', 'bin/bobbin', ...$arguments];

        self::assertSame(['memory_limit=1G', 'precision=11'], OpcacheRelaunch::userSettingsOf($relaunched, 3, ['BOBBIN_OPCACHE_RELAUNCHED' => '1']));
        // Not relaunched: the same options are the user's own.
        self::assertSame(['opcache.enable_cli=1', 'opcache.jit=off'], OpcacheRelaunch::userSettingsOf($byHand, 3, []));
        self::assertSame([], OpcacheRelaunch::userSettingsOf(['php', 'bin/bobbin', ...$arguments], 3, ['BOBBIN_OPCACHE_RELAUNCHED' => '1']));
    }
}
