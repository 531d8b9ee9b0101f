<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The master's /metrics and /status.json never go backwards while workers come and go: a
 * worker that retires (--max-requests), is replaced by a reload or ends itself (exit(), an
 * exhausted memory_limit) leaves its counters and histograms in the totals, which equal the
 * requests answered.
 */
final class MonotonicMetricsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';
    /** The one with /spin (a loop that never yields). */
    private const HTTP_APP = __DIR__ . '/../../Support/Http/test-app.php';
    private const ROUND = 150;

    private ?MasterProcess $master = null;
    private string $admin = '';
    private int $sent = 0;
    private float $lastTotal = 0.0;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    /** @param list<string> $options */
    private function start(array $options = [], string $app = self::APP): MasterProcess
    {
        $this->master = MasterProcess::start($app, ['--workers=2', '--job-workers=0', '--admin=127.0.0.1:0', ...$options]);
        $this->admin = $this->master->waitForLog('/Admin on (\S+):/')[1];
        $this->master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);

        return $this->master;
    }

    private function sendRound(int $requests = self::ROUND): void
    {
        for ($i = 0; $i < $requests; $i++) {
            self::assertSame(200, HttpGet::fetch((string) $this->master?->address, '/')['status']);
            $this->sent++;
        }
    }

    /** Scrapes /metrics and /status.json: both count every request sent, and never fewer than the last scrape. */
    private function assertTotalsEqualTheRequestsSent(string $when): void
    {
        $total = 0.0;
        $durations = null;
        foreach (\explode("\n", HttpGet::fetch($this->admin, '/metrics')['body']) as $line) {
            if (\preg_match('/^bobbin_http_requests_total\{[^}]*\} (\S+)$/', $line, $m) === 1) {
                $total += (float) $m[1];
            } elseif (\preg_match('/^bobbin_http_request_duration_seconds_count (\S+)$/', $line, $m) === 1) {
                $durations = (float) $m[1];
            }
        }
        self::assertGreaterThanOrEqual($this->lastTotal, $total, "bobbin_http_requests_total went backwards $when");
        self::assertSame((float) $this->sent, $total, "bobbin_http_requests_total $when");
        self::assertSame((float) $this->sent, $durations, "bobbin_http_request_duration_seconds_count $when");
        $report = \json_decode(HttpGet::fetch($this->admin, '/status.json')['body'], true);
        self::assertIsArray($report);
        self::assertSame($this->sent, $report['totals']['requests'] ?? null, "status.json's totals.requests $when");
        $this->lastTotal = $total;
    }

    public function testTheRequestCounterNeverFallsAsWorkersRetireAndEqualsTheRequestsSent(): void
    {
        $master = $this->start(['--max-requests=100']);

        for ($round = 1; $round <= 6; $round++) {
            $this->sendRound();
            $this->assertTotalsEqualTheRequestsSent("after round $round");
        }

        self::assertGreaterThanOrEqual(5, \preg_match_all('/Worker \d+ retires \(served/', $master->log()), $master->log());
        // Each ended worker's figures are in the sum once, also after the master has reaped them all.
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2, 10.0, null);
        $this->assertTotalsEqualTheRequestsSent('once the retired workers are gone');
    }

    public function testTheRequestCounterSurvivesAReload(): void
    {
        $master = $this->start();
        $old = $master->workerPids();
        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('before the reload');

        $master->signal(\SIGHUP);
        $master->waitForLog('/Reload complete/');
        self::assertSame([], MasterProcess::waitUntilExited($old), 'the old workers drained');
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && \array_intersect($pids, $old) === [], 10.0, null);
        $this->assertTotalsEqualTheRequestsSent('after the reload, with only new workers');

        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('after a round on the new workers');
    }

    /** @return iterable<string, array{string}> */
    public static function abruptEnds(): iterable
    {
        yield 'exit()' => ['/exit-now'];
        yield 'an exhausted memory_limit' => ['/oom'];
    }

    #[DataProvider('abruptEnds')]
    public function testTheRequestCounterSurvivesAWorkerThatEndsInTheMiddleOfARequest(string $path): void
    {
        $master = $this->start(['--memory-limit=64M']);
        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('before the crash');
        $before = $master->workerPids();

        // Answered with a 500 as its worker ends (AbruptEndReport): a request answered, so counted.
        self::assertSame(500, HttpGet::fetch($master->address, $path)['status']);
        $this->sent++;
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && $pids !== $before, 10.0);
        $this->assertTotalsEqualTheRequestsSent('after the crash');

        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('after a round on the replacement');
    }

    public function testAWorkerKilledWithSigkillLeavesTheFiguresTheMasterLastHad(): void
    {
        $master = $this->start();
        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('before the kill');
        $before = $master->workerPids();

        \posix_kill($before[0], \SIGKILL); // no last word: the master keeps the scrape's answer
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($before[0], $pids, true), 10.0);
        $this->assertTotalsEqualTheRequestsSent('after the kill');

        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('after a round on the replacement');
    }

    public function testAWorkerTooBusyToAnswerAScrapeIsShownWithItsLastFigures(): void
    {
        $this->start([], self::HTTP_APP);
        $this->sendRound();
        $this->assertTotalsEqualTheRequestsSent('before a worker is busy');

        $busy = new RawClient((string) $this->master?->address);
        $busy->send("GET /spin?ms=1500 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        \usleep(200_000);
        $this->assertTotalsEqualTheRequestsSent('while a worker holds its loop past the scrape\'s wait');

        self::assertSame(200, $busy->readResponse()['status'] ?? null);
        $this->sent++;
        $this->assertTotalsEqualTheRequestsSent('once it answered');
    }
}
