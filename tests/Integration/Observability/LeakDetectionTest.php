<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\Depends;
use PHPUnit\Framework\TestCase;

/** --detect-leaks: each kind of state a request leaves behind is logged once, naming the request; clean traffic logs nothing. */
final class LeakDetectionTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Observability/leaky-app.php';

    private static ?MasterProcess $master = null;
    private static string $admin = '';

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(
            self::APP,
            ['--workers=1', '--job-workers=0', '--detect-leaks', '--admin=127.0.0.1:0'],
            ['DATABASE_URL' => EmbeddedPostgres::connectionString()],
        );
        self::$admin = self::$master->waitForLog('/Admin on (\S+):/')[1];
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
    }

    public function testTenThousandCleanRequestsReportNothing(): void
    {
        $master = self::master();
        $output = (string) \shell_exec(\sprintf('ab -q -k -n 10000 -c 20 %s 2>&1', \escapeshellarg($master->url('/clean'))));

        self::assertMatchesRegularExpression('/Complete requests:\s+10000/', $output);
        self::assertMatchesRegularExpression('/Failed requests:\s+0/', $output);
        self::assertStringNotContainsString('State leak', $master->log());
    }

    /** @return iterable<string, array{string, string}> route => what the report names */
    public static function leaks(): iterable
    {
        yield 'a static property' => ['/static', 'LeakyCart::$items: a static property'];
        yield 'a singleton\'s field' => ['/singleton', 'LeakySession::$instance: a static property'];
        yield 'a global variable' => ['/global', '$currentUser (set): a global variable'];
        yield 'an ini setting' => ['/ini', "default_socket_timeout ('60' → '7'): an ini setting"];
        yield 'the timezone' => ['/timezone', '(UTC → Asia/Tokyo): the default timezone'];
        yield 'the locale' => ['/locale', '→ C.UTF-8): the locale'];
        yield 'an output buffer' => ['/ob', 'ob_start() (1 left open): output buffers'];
        yield 'a loop callback' => ['/timer', 'leaky-app.php:'];
        yield 'a pooled connection' => ['/connection', '(1 not given back): database connections'];
        yield 'an open transaction' => ['/transaction', '(1 connection(s) given back inside a transaction): a transaction'];
    }

    #[DataProvider('leaks')]
    #[Depends('testTenThousandCleanRequestsReportNothing')]
    public function testEachKindOfLeakIsReportedWithTheRequestThatLeftIt(string $route, string $named): void
    {
        $master = self::master();
        self::assertSame(200, HttpGet::fetch($master->address, $route . '?user=bob')['status']);

        // One line per leak: the route may leave more than one (a kept connection is also a changed static).
        $master->waitForLog('~State leak: GET ' . \preg_quote($route, '~') . '\?user=bob \(request \S+\) left [^\n]*' . \preg_quote($named, '~') . '~');
        $this->addToAssertionCount(1);
    }

    #[Depends('testEachKindOfLeakIsReportedWithTheRequestThatLeftIt')]
    public function testALeakIsLoggedOnceButCountedEachTime(): void
    {
        $master = self::master();
        HttpGet::fetch($master->address, '/static?user=carol');
        HttpGet::fetch($master->address, '/static?user=dave');

        self::assertSame(1, \substr_count($master->log(), 'left LeakyCart::$items'));
        self::assertMatchesRegularExpression('/^bobbin_state_leaks_total\{kind="static_property"\} [3-9]/m', HttpGet::fetch(self::$admin, '/metrics')['body']);
    }

    private static function master(): MasterProcess
    {
        self::assertNotNull(self::$master);

        return self::$master;
    }
}
