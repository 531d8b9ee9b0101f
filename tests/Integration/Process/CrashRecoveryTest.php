<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Process\Load;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** A worker that dies is replaced; the service stays up. */
final class CrashRecoveryTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';
    private const CONNECTIONS = 16;

    private ?MasterProcess $master = null;

    protected function setUp(): void
    {
        if (!Load::isAvailable()) {
            self::markTestSkipped('wrk is not installed');
        }
    }

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    public function testAWorkerKilledWithSigkillUnderLoadIsReplacedWithinASecondAndOnlyItsRequestsFail(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $before = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $load = Load::start($master->url('/'), self::CONNECTIONS, 4.0);
        \usleep(1_000_000);

        $victim = $before[0];
        \posix_kill($victim, \SIGKILL);
        $killedAt = \microtime(true);
        $master->waitForReadyWorkers(
            static fn (array $pids): bool => \count($pids) === 2 && !\in_array($victim, $pids, true),
            5.0,
            null,
        );
        $replacedAfter = \microtime(true) - $killedAt;
        $after = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($victim, $pids, true));
        $result = $load->finish();

        self::assertLessThan(1.0, $replacedAfter, 'No replacement appeared in the status file within a second');
        self::assertContains($before[1], $after, 'The surviving worker was replaced too');
        self::assertMatchesRegularExpression('/Worker ' . $victim . ' was killed by signal 9; (starting a replacement|a replacement starts in)/', $master->log());
        self::assertGreaterThan(1000, $result['requests'], $result['output']);
        self::assertSame(0, $result['non2xx'], $result['output']);
        // Only the connections that were on the killed worker can fail, each at most once.
        self::assertLessThanOrEqual(self::CONNECTIONS, $result['socketErrors'], $result['output']);
        self::assertTrue($master->isRunning());
        self::assertSame(0, $master->stop());
    }

    public function testAWorkerThatExitsIsReplacedAndTheNextRequestsAreServed(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $before = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $client = new RawClient($master->address);
        $client->send("GET /exit HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('bye', $client->readResponse()['body'] ?? null);

        $after = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && $pids !== $before, 5.0);

        self::assertCount(1, \array_diff($before, $after), 'Exactly one worker was replaced');
        self::assertMatchesRegularExpression('/exited with code 3; (starting a replacement|a replacement starts in)/', $master->log());
        for ($i = 0; $i < 10; $i++) {
            $client = new RawClient($master->address);
            $client->send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            self::assertSame('hello', $client->readResponse()['body'] ?? null);
            $client->close();
        }
        self::assertSame(0, $master->stop());
    }

    public function testWorkersOfAMasterKilledWithSigkillStopByThemselves(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $workers = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);

        $master->signal(\SIGKILL);
        $master->wait(5.0);

        self::assertSame([], MasterProcess::waitUntilExited($workers), 'A worker kept running without its master');
        self::assertStringContainsString('The master process is gone', $master->log());
    }
}
