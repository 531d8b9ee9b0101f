<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Metrics;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The admin listener off the loopback: refused at start without a token or --admin-insecure;
 * with a token, every request needs it; each mode says so at start (issue 36 item 2).
 */
final class AdminAuthenticationTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';
    private const TOKEN = 'c0ffee-0123456789abcdef0123456789abcdef';

    private ?string $tokenFile = null;

    protected function tearDown(): void
    {
        if ($this->tokenFile !== null) {
            @\unlink($this->tokenFile);
        }
    }

    public function testAnAddressOtherHostsReachIsRefusedAtStartWithoutATokenOrTheInsecureFlag(): void
    {
        $master = MasterProcess::startExpectingFailure(self::APP, ['--workers=1', '--admin=0.0.0.0:0']);

        self::assertNotSame(0, $master->wait());
        self::assertStringContainsString('--admin-token-file', $master->log());
        self::assertStringContainsString('--admin-insecure', $master->log());
    }

    public function testWithATokenEveryRequestMustCarryItAndTheStartSaysSo(): void
    {
        $this->tokenFile = \tempnam(\sys_get_temp_dir(), 'bobbin-admin-token-');
        \file_put_contents($this->tokenFile, self::TOKEN . "\n");
        $master = MasterProcess::start(self::APP, ['--workers=1', '--admin=0.0.0.0:0', '--admin-token-file=' . $this->tokenFile]);
        $admin = \str_replace('0.0.0.0:', '127.0.0.1:', $master->waitForLog('/Admin on (\S+):/')[1]);

        self::assertMatchesRegularExpression('/Admin on \S+: .*bearer token required/', $master->log());
        foreach (['/metrics', '/status.json', '/status'] as $path) {
            $anonymous = HttpGet::fetch($admin, $path);
            self::assertSame(401, $anonymous['status'], $path . ' without the token');
            self::assertSame('Bearer', $anonymous['headers']['www-authenticate'] ?? null);
            self::assertSame(401, HttpGet::fetch($admin, $path, ['Authorization: Bearer wrong-token-0123456789abcdef'])['status']);
        }
        $scrape = HttpGet::fetch($admin, '/metrics', ['Authorization: Bearer ' . self::TOKEN]);
        self::assertSame(200, $scrape['status']);
        self::assertStringContainsString('bobbin_workers', $scrape['body']);
        self::assertStringNotContainsString(self::TOKEN, $master->log(), 'the token is never logged');
        $master->stop();
    }

    public function testTheInsecureFlagOpensItAndTheStartWarns(): void
    {
        $master = MasterProcess::start(self::APP, ['--workers=1', '--admin=0.0.0.0:0', '--admin-insecure']);
        $admin = \str_replace('0.0.0.0:', '127.0.0.1:', $master->waitForLog('/Admin on (\S+):/')[1]);

        self::assertStringContainsString('NO AUTHENTICATION', $master->log());
        self::assertSame(200, HttpGet::fetch($admin, '/metrics')['status']);
        $master->stop();
    }

    public function testTheLoopbackNeedsNeither(): void
    {
        $master = MasterProcess::start(self::APP, ['--workers=1', '--admin=127.0.0.1:0']);
        $admin = $master->waitForLog('/Admin on (\S+):/')[1];

        self::assertStringContainsString('local only', $master->log());
        self::assertSame(200, HttpGet::fetch($admin, '/metrics')['status']);
        $master->stop();
    }
}
