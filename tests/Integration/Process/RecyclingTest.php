<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\Load;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** --max-requests and --max-memory: a worker is replaced without a failed request. */
final class RecyclingTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    public function testMaxRequestsRecyclesWorkersUnderLoadWithoutAFailedRequest(): void
    {
        if (!Load::isAvailable()) {
            self::markTestSkipped('wrk is not installed');
        }
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2', '--max-requests=2000']);
        $first = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);

        $result = Load::start($master->url('/'), 16, 4.0)->finish();

        self::assertGreaterThan(8000, $result['requests'], $result['output']);
        self::assertSame(0, $result['non2xx'], $result['output']);
        self::assertSame(0, $result['socketErrors'], $result['output']);
        \preg_match_all('/Worker (\d+) retires \(served (\d+) requests\)/', $master->log(), $retired, \PREG_SET_ORDER);
        self::assertGreaterThanOrEqual(2, \count($retired), $master->log());
        foreach ($retired as [, , $served]) {
            self::assertGreaterThanOrEqual(1800, (int) $served);
            self::assertLessThanOrEqual(2200, (int) $served);
        }
        $now = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        self::assertNotSame($first, $now, 'No worker was replaced');
        self::assertSame(0, $master->stop());
    }

    public function testAWorkerOverMaxMemoryIsReplaced(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2', '--max-memory=24M']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $client = new RawClient($master->address);
        $client->send("GET /pid HTTP/1.1\r\nHost: a\r\n\r\n");
        $pid = (int) ($client->readResponse()['body'] ?? 0);

        $client->send("GET /grow?mb=32 HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame(200, $client->readResponse()['status'] ?? null);
        $master->waitForLog('/Worker ' . $pid . ' retires \(uses [\d.]+M, over --max-memory\)/', 5.0);
        $now = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($pid, $pids, true));

        self::assertNotContains($pid, $now);
        // Its keep-alive connection got a last answer (with close) or was closed idle; it never hangs.
        $client->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        $last = $client->readResponse();
        self::assertTrue($last === null || ($last['headers']['connection'] ?? null) === ['close']);
        self::assertSame(0, $master->stop());
    }
}
