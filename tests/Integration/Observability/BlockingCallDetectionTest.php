<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * --block-threshold: code that holds a worker's loop is logged with its request once it lets go,
 * without interrupting it (a sleep() sleeps its full time); clean traffic logs nothing; 0 turns
 * it off. --block-stacks (opt-in) also interrupts the code with a signal to log its PHP stack.
 */
final class BlockingCallDetectionTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';
    /** The report made after the fact (the default). */
    private const HELD = '~The loop of worker \d+ was held for ([\d.]+) s by %s \(request (\S+)\) without yielding~';
    /** The report with the stack (--block-stacks). */
    private const REPORT = 'has held the loop of worker';

    private static ?MasterProcess $master = null;
    private static ?MasterProcess $withStacks = null;
    private static string $admin = '';

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--admin=127.0.0.1:0']);
        self::$admin = self::$master->waitForLog('/Admin on (\S+):/')[1];
        // The opt-in through its environment variable (the command line's --block-stacks is the same option).
        self::$withStacks = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0'], ['BOBBIN_BLOCK_STACKS' => '1']);
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
        self::$withStacks?->stop();
        self::$withStacks = null;
    }

    public function testByDefaultAHandlerThatCallsSleepSleepsItsFullSecondAndItsRequestIsReported(): void
    {
        $master = self::master();
        $logBefore = \strlen($master->log());
        $response = HttpGet::fetch($master->address, '/sleep?s=1');

        self::assertSame(200, $response['status']);
        self::assertGreaterThanOrEqual(1.0, (float) $response['body'], 'sleep(1), measured inside the handler, was cut short');
        $report = $master->waitForLog(\sprintf(self::HELD, 'GET /sleep\?s=1'));
        self::assertGreaterThanOrEqual(1.0, (float) $report[1]);
        self::assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]+$/', $report[2]);
        self::assertStringNotContainsString(self::REPORT, \substr($master->log(), $logBefore), 'no stack unless asked for');
    }

    public function testByDefaultARequestOnAKeptAliveConnectionIsNamedWithTheIdItsResponseCarries(): void
    {
        $master = self::master();
        $client = new RawClient($master->address);
        $client->send("GET /?first HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $client->readResponse()['status'] ?? null);
        $client->send("GET /block?ms=300 HTTP/1.1\r\nHost: a\r\n\r\n");
        $response = $client->readResponse();
        $client->close();

        self::assertSame(200, $response['status'] ?? null);
        $report = $master->waitForLog(\sprintf(self::HELD, 'GET /block\?ms=300'));
        self::assertGreaterThanOrEqual(0.3, (float) $report[1]);
        self::assertSame($response['headers']['x-request-id'][0] ?? null, $report[2]);
    }

    public function testByDefaultCodeThatSpinsIsReportedOnceWithTheWholeTimeItHeldTheLoop(): void
    {
        $master = self::master();
        $logBefore = \strlen($master->log());

        self::assertSame('spun', HttpGet::fetch($master->address, '/spin?ms=900')['body']);
        $report = $master->waitForLog(\sprintf(self::HELD, 'GET /spin\?ms=900'));
        \usleep(300_000);

        self::assertGreaterThanOrEqual(0.9, (float) $report[1]);
        self::assertSame(1, \substr_count(\substr($master->log(), $logBefore), 'was held for'));
    }

    public function testWithBlockStacksAHandlerThatSleepsIsReportedWithItsRouteAndALineOfItsOwnFile(): void
    {
        $master = self::withStacks();
        $response = HttpGet::fetch($master->address, '/block?ms=300');

        self::assertSame(200, $response['status']);
        $report = $master->waitForLog('~GET /block\?ms=300 \(request (\S+)\) has held the loop of worker \d+ for ([\d.]+) s .*? It was at (\S+):(\d+)~');
        // The signal comes once the loop's turn has run 0.1 s and cuts the usleep() short; the
        // handler's own part of the turn is all but the loop's read of the request before it.
        self::assertGreaterThanOrEqual(0.09, (float) $report[2]);
        self::assertSame(\realpath(self::APP), $report[3]);
        // PHP runs the probe between two statements: the statement after usleep() in the route.
        [$first, $last] = self::linesOfRoute('/block');
        self::assertGreaterThanOrEqual($first, (int) $report[4]);
        self::assertLessThanOrEqual($last, (int) $report[4]);
    }

    public function testWithBlockStacksCodeThatSpinsIsReportedOnceAtItsLoopHoweverLongItRuns(): void
    {
        $master = self::withStacks();
        $logBefore = \strlen($master->log());

        // 0.9 s: the master signals again each time the busy stretch doubles (0.1, 0.2, 0.4, 0.8 s).
        self::assertSame('spun', HttpGet::fetch($master->address, '/spin?ms=900')['body']);
        $master->waitForLog('~GET /spin\?ms=900 \(request~');
        \usleep(300_000);

        $log = \substr($master->log(), $logBefore);
        self::assertSame(1, \substr_count($log, self::REPORT), $log);
        self::assertSame(0, \substr_count($log, 'was held for'), 'the stack report stands for the request: not reported twice');
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
        $master->waitForLog(\sprintf(self::HELD, 'GET /spin\?ms=250'));

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
        self::assertStringNotContainsString('was held for', \substr($master->log(), $logBefore));
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
            self::assertStringNotContainsString('was held for', $master->log());
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

    private static function withStacks(): MasterProcess
    {
        self::assertNotNull(self::$withStacks);

        return self::$withStacks;
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
