<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * --block-threshold: code that holds a worker's loop is logged with its request and its PHP
 * stack, once per request; clean traffic logs nothing; 0 turns it off.
 */
final class BlockingCallDetectionTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';
    private const REPORT = 'has held the loop of worker';

    private static ?MasterProcess $master = null;
    private static string $admin = '';

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--admin=127.0.0.1:0']);
        self::$admin = self::$master->waitForLog('/Admin on (\S+):/')[1];
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
    }

    public function testAHandlerThatSleepsIsReportedWithItsRouteAndALineOfItsOwnFile(): void
    {
        $master = self::master();
        $response = HttpGet::fetch($master->address, '/block?ms=300');

        self::assertSame(200, $response['status']);
        $report = $master->waitForLog('~GET /block\?ms=300 \(request (\S+)\) has held the loop of worker \d+ for ([\d.]+) s .*? It was at (\S+):(\d+)~');
        self::assertGreaterThanOrEqual(0.1, (float) $report[2]);
        self::assertSame(\realpath(self::APP), $report[3]);
        // PHP runs the probe between two statements: the statement after usleep() in the route.
        [$first, $last] = self::linesOfRoute('/block');
        self::assertGreaterThanOrEqual($first, (int) $report[4]);
        self::assertLessThanOrEqual($last, (int) $report[4]);
    }

    public function testCodeThatSpinsIsReportedOnceAtItsLoopHoweverLongItRuns(): void
    {
        $master = self::master();
        $logBefore = \strlen($master->log());

        // 0.9 s: the master signals again each time the busy stretch doubles (0.1, 0.2, 0.4, 0.8 s).
        self::assertSame('spun', HttpGet::fetch($master->address, '/spin?ms=900')['body']);
        $master->waitForLog('~GET /spin\?ms=900 \(request~');
        \usleep(300_000);

        $log = \substr($master->log(), $logBefore);
        self::assertSame(1, \substr_count($log, self::REPORT), $log);
        \preg_match('~It was at (\S+):(\d+)~', $log, $at);
        [$first, $last] = self::linesOfRoute('/spin');
        self::assertSame(\realpath(self::APP), $at[1] ?? '');
        self::assertGreaterThanOrEqual($first, (int) ($at[2] ?? 0));
        self::assertLessThanOrEqual($last, (int) ($at[2] ?? 0));
        self::assertStringContainsString('#1 ' . \dirname(__DIR__, 3) . '/src/Http/Connection.php', $log, 'the stack goes on through the server to the connection');
    }

    public function testTheReportsAreCountedInTheMetrics(): void
    {
        $master = self::master();
        HttpGet::fetch($master->address, '/spin?ms=250');
        $master->waitForLog('~GET /spin\?ms=250 \(request~');

        $metrics = HttpGet::fetch(self::$admin, '/metrics')['body'];
        self::assertMatchesRegularExpression('/^bobbin_loop_blocks_total\{[^}]*\} [1-9]/m', $metrics);
    }

    public function testTenThousandCleanRequestsReportNothing(): void
    {
        $master = self::master();
        $logBefore = \strlen($master->log());

        $output = (string) \shell_exec(\sprintf('ab -q -k -n 10000 -c 50 %s 2>&1', \escapeshellarg($master->url('/'))));

        self::assertMatchesRegularExpression('/Complete requests:\s+10000/', $output);
        self::assertMatchesRegularExpression('/Failed requests:\s+0/', $output);
        \usleep(200_000);
        self::assertStringNotContainsString(self::REPORT, \substr($master->log(), $logBefore));
    }

    public function testAThresholdOfZeroTurnsDetectionOffAndLeavesSleepsWhole(): void
    {
        $master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--block-threshold=0']);
        try {
            $started = \microtime(true);
            self::assertSame(200, HttpGet::fetch($master->address, '/block?ms=300')['status']);
            self::assertGreaterThanOrEqual(0.3, \microtime(true) - $started);
            \usleep(200_000);
            self::assertStringNotContainsString(self::REPORT, $master->log());
        } finally {
            $master->stop();
        }
    }

    private static function master(): MasterProcess
    {
        self::assertNotNull(self::$master);

        return self::$master;
    }

    /** @return array{int, int} the first and last line of the test app's case for $path */
    private static function linesOfRoute(string $path): array
    {
        $lines = (array) \file(self::APP);
        $first = $last = 0;
        foreach ($lines as $i => $line) {
            if ($first === 0 && \str_contains((string) $line, "case '$path':")) {
                $first = $i + 1;
            } elseif ($first !== 0 && \str_contains((string) $line, 'return ')) {
                $last = $i + 1;
                break;
            }
        }
        self::assertGreaterThan(0, $last, "no route $path in the test app");

        return [$first, $last];
    }
}
