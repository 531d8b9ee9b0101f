<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Metrics;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** The master's admin listener: metrics merged over the workers, the status report and page. */
final class AdminListenerTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';

    private static ?MasterProcess $master = null;
    private static string $admin = '';

    public static function setUpBeforeClass(): void
    {
        self::$master = MasterProcess::start(self::APP, ['--workers=2', '--admin=127.0.0.1:0']);
        self::$admin = self::$master->waitForLog('/Admin on (\S+):/')[1];
    }

    public static function tearDownAfterClass(): void
    {
        self::$master?->stop();
        self::$master = null;
    }

    /** @return array<string, float> series (name with labels) => value */
    private static function scrape(): array
    {
        $response = HttpGet::fetch(self::$admin, '/metrics');
        self::assertSame(200, $response['status']);
        $series = [];
        foreach (\explode("\n", $response['body']) as $line) {
            if ($line !== '' && $line[0] !== '#' && \preg_match('/^(\S+) (\S+)$/', $line, $m) === 1) {
                $series[$m[1]] = (float) $m[2];
            }
        }

        return $series;
    }

    /** @param array<string, float> $series */
    private static function sum(array $series, string $prefix): float
    {
        $sum = 0.0;
        foreach ($series as $name => $value) {
            if (\str_starts_with($name, $prefix)) {
                $sum += $value;
            }
        }

        return $sum;
    }

    public function testRequestTotalsAreTheSumOverTheWorkersOfWhatWasAnswered(): void
    {
        $before = self::sum(self::scrape(), 'bobbin_http_requests_total{');
        for ($i = 0; $i < 37; $i++) {
            $client = new RawClient(self::$master?->address ?? '');
            $client->send($i % 5 === 0 ? "GET /status?code=503 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" : "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            self::assertNotNull($client->readResponse());
            $client->close();
        }

        $series = self::scrape();

        self::assertSame(37.0, self::sum($series, 'bobbin_http_requests_total{') - $before);
        self::assertGreaterThanOrEqual(8.0, $series['bobbin_http_requests_total{method="GET",status="5xx"}'] ?? 0.0);
        self::assertSame(2.0, $series['bobbin_worker_starts_total'] ?? null);
        self::assertSame(2.0, $series['bobbin_workers{state="ready"}'] ?? null);
        self::assertCount(2, \array_filter(\array_keys($series), static fn (string $n): bool => \str_starts_with($n, 'bobbin_php_heap_bytes{worker=')));
        self::assertGreaterThan(0.0, $series['bobbin_http_request_duration_seconds_count'] ?? 0.0);
    }

    public function testPromtoolAcceptsTheExposition(): void
    {
        if (!\is_executable('/usr/bin/promtool')) {
            self::markTestSkipped('promtool is not installed (scripts/install-deps installs prometheus)');
        }
        $body = HttpGet::fetch(self::$admin, '/metrics')['body'];
        $process = \proc_open(['/usr/bin/promtool', 'check', 'metrics'], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        \fwrite($pipes[0], $body);
        \fclose($pipes[0]);
        $output = \stream_get_contents($pipes[1]) . \stream_get_contents($pipes[2]);

        self::assertSame(0, \proc_close($process), (string) $output);
    }

    public function testOpenMetricsIsServedWhenTheScraperAsksForIt(): void
    {
        $response = HttpGet::fetch(self::$admin, '/metrics', ['Accept: application/openmetrics-text; version=1.0.0']);

        self::assertStringStartsWith('application/openmetrics-text', $response['headers']['content-type'] ?? '');
        self::assertStringEndsWith("# EOF\n", $response['body']);
        self::assertStringContainsString("# TYPE bobbin_http_requests counter\n", $response['body']);
    }

    public function testTheStatusReportNamesTheMasterTheWorkersAndTheTotals(): void
    {
        $report = \json_decode(HttpGet::fetch(self::$admin, '/status.json')['body'], true);

        self::assertSame(self::$master?->pid, $report['master']['pid'] ?? null);
        self::assertSame('running', $report['master']['phase'] ?? null);
        self::assertCount(2, $report['workers'] ?? []);
        foreach ($report['workers'] as $worker) {
            self::assertGreaterThan(0, $worker['rss']);
            self::assertSame('ready', $worker['state']);
        }
        self::assertIsInt($report['totals']['requests'] ?? null);
    }

    public function testTheStatusPageIsOneDocumentThatReadsTheReport(): void
    {
        $response = HttpGet::fetch(self::$admin, '/status');

        self::assertSame(200, $response['status']);
        self::assertStringStartsWith('text/html', $response['headers']['content-type'] ?? '');
        self::assertStringContainsString("fetch('status.json'", $response['body']);
        self::assertDoesNotMatchRegularExpression('~<(script|link)[^>]+(src|href)=~', $response['body'], 'an external asset');
        self::assertSame(404, HttpGet::fetch(self::$admin, '/nope')['status']);
    }

    public function testBobbinStatusPrintsTheLiveReportAsATable(): void
    {
        [$code, $out] = ServerProcess::runToCompletion(['status', '--pid-file=' . self::$master?->pidFile]);

        self::assertSame(0, $code);
        self::assertMatchesRegularExpression('/^master \d+ running, generation 1, 127\.0\.0\.1:\d+; \d+ requests/m', $out);
        self::assertSame(2, \preg_match_all('/^\d+\s+ready\s+/m', $out));
    }
}
