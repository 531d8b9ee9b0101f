<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Observability\PrivatePrometheus;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/**
 * A real Prometheus scrapes the master every second while its workers retire (--max-requests),
 * one ends itself with exit() and a reload replaces them all: it sees no counter reset, and its
 * counter ends equal to the requests answered.
 */
#[Group('prometheus')]
final class PrometheusThroughRestartsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';
    private const ROUND = 150;

    private ?MasterProcess $master = null;
    private ?PrivatePrometheus $prometheus = null;
    private int $sent = 0;

    protected function setUp(): void
    {
        if (!PrivatePrometheus::isInstalled()) {
            self::markTestSkipped('prometheus is not installed (Debian package prometheus; scripts/install-deps installs it)');
        }
    }

    protected function tearDown(): void
    {
        $this->prometheus?->stop();
        $this->master?->kill();
    }

    private function sendRound(string $path = '/', int $status = 200, int $requests = self::ROUND): void
    {
        for ($i = 0; $i < $requests; $i++) {
            self::assertSame($status, HttpGet::fetch((string) $this->master?->address, $path)['status']);
            $this->sent++;
        }
        \usleep(1_300_000); // a scrape or more before what comes next
    }

    public function testPrometheusSeesNoResetThroughFiveRecyclesACrashAndAReloadAndCountsEveryRequest(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, [
            '--workers=2', '--job-workers=0', '--max-requests=100', '--memory-limit=64M', '--admin=127.0.0.1:0',
        ]);
        $admin = $master->waitForLog('/Admin on (\S+):/')[1];
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        // Before the first scrape, a request of each status class the run will make: increase()
        // measures from a series' first sample, and counts nothing for a series born with a value.
        $this->sendRound(requests: 1);
        $this->sendRound('/exit-now', 500, 1);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2, 10.0);
        $beforeTheFirstScrape = $this->sent;
        $this->prometheus = $prometheus = PrivatePrometheus::start(MasterProcess::root() . '/var', $admin);
        $prometheus->awaitUp();
        $started = \microtime(true);

        for ($round = 0; $round < 4; $round++) {
            $this->sendRound();
        }
        $this->sendRound('/exit-now', 500, 1);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2, 10.0);
        $this->sendRound();
        $old = $master->workerPids();
        $master->signal(\SIGHUP);
        $master->waitForLog('/Reload complete/');
        self::assertSame([], MasterProcess::waitUntilExited($old), 'the old workers drained');
        $this->sendRound();

        $deadline = \microtime(true) + 20.0;
        while (($last = $prometheus->value('sum(bobbin_http_requests_total)')) !== (float) $this->sent && \microtime(true) < $deadline) {
            \usleep(250_000);
        }
        $window = (int) \ceil(\microtime(true) - $started) + 10;
        $overTime = $prometheus->range('sum(bobbin_http_requests_total)', $started, \microtime(true));
        $resets = $prometheus->value("sum(resets(bobbin_http_requests_total[{$window}s]))");
        // increase() over exactly the samples taken, from the first to the last: so it has no
        // window edge to extrapolate to (1 ms more than the span: a range may exclude its start).
        $samples = $prometheus->samples("bobbin_http_requests_total{status=\"2xx\"}[{$window}s]");
        self::assertNotEmpty($samples);
        $span = (int) \round(1000 * ($samples[\count($samples) - 1][0] - $samples[0][0])) + 1;
        $increase = $prometheus->valueAt("sum(increase(bobbin_http_requests_total[{$span}ms]))", $samples[\count($samples) - 1][0]);

        self::assertGreaterThanOrEqual(5, \preg_match_all('/Worker \d+ retires \(served/', $master->log()), 'five recycles at least');
        self::assertSame((float) $this->sent, $last, 'the counter as Prometheus last scraped it');
        self::assertSame(0.0, $resets, 'a counter reset, which rate() and increase() would over-count');
        self::assertNotEmpty($overTime);
        foreach ($overTime as $i => $value) {
            self::assertGreaterThanOrEqual($overTime[\max(0, $i - 1)], $value, 'the sum went backwards: ' . \implode(', ', $overTime));
        }
        self::assertNotNull($increase);
        self::assertEqualsWithDelta($this->sent - $beforeTheFirstScrape, $increase, 0.5, 'increase() from the first scrape to the last');
    }
}
