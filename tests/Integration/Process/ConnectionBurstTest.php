<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Process\MasterProcess;
use Bobbin\Tests\Support\Process\RequestFlood;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * A burst of connections that send nothing costs a worker little memory and never kills it:
 * 10,000 and 20,000 of them opened within about a second, at the default --memory-limit, beside
 * a fresh client that is still answered at once.
 */
final class ConnectionBurstTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';
    private const BURST = __DIR__ . '/../../Support/Process/connection-burst.php';
    private const PER_CLIENT = 10_000;

    private ?MasterProcess $master = null;
    /** @var list<resource> */
    private array $clients = [];

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            \proc_terminate($client);
            \proc_close($client);
        }
        $this->master?->kill();
    }

    /** @return iterable<string, array{int}> */
    public static function bursts(): iterable
    {
        yield '10,000 connections' => [10_000];
        yield '20,000 connections' => [20_000];
    }

    #[DataProvider('bursts')]
    public function testABurstOfSilentConnectionsLeavesTheWorkerAliveAndAFreshClientIsAnsweredAtOnce(int $connections): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1']);
        [$worker] = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1);
        $this->openSilentConnections($master, $connections);

        // Three fresh clients, 0.1 s apart: the quickest answer tells whether the worker serves
        // beside the burst; one slow answer on a shared 2-core machine is the scheduler's.
        $latencies = [];
        for ($try = 0; $try < 3; $try++) {
            $started = \microtime(true);
            $answer = RequestFlood::run($master->address, ['/pid'], 1, 5.0);
            $latencies[] = \microtime(true) - $started;
            self::assertSame(200, $answer[0]['status'], $master->log());
            \usleep(100_000);
        }

        $log = $master->log();
        self::assertLessThan(0.05, \min($latencies), 'A fresh client waited behind the burst: ' . \implode(', ', $latencies));
        self::assertStringNotContainsString('exhausted', $log);
        self::assertSame([$worker], $master->workerPids('ready'), 'The worker was replaced: ' . $log);
        self::assertTrue(MasterProcess::isAlive($worker), $log);
        self::assertSame(0, $master->stop());
    }

    public function testAWorkerNearItsMemoryLimitTakesNoMoreConnectionsThanItCanHoldAndSaysSoOnce(): void
    {
        // 10,000 connections of a few KiB each are more than three quarters of 24M.
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=1', '--memory-limit=24M']);
        [$worker] = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1);
        $this->openSilentConnections($master, 10_000);

        $answer = RequestFlood::run($master->address, ['/pid'], 1, 5.0);

        $log = $master->log();
        self::assertSame(200, $answer[0]['status'], $log);
        self::assertSame([$worker], $master->workerPids('ready'), 'The worker was replaced: ' . $log);
        self::assertStringNotContainsString('exhausted', $log);
        self::assertSame(1, \substr_count($log, 'over 75% of memory_limit'), $log);
        self::assertTrue(MasterProcess::isAlive($worker), $log);
        self::assertSame(0, $master->stop());
    }

    private function openSilentConnections(MasterProcess $master, int $connections): void
    {
        // Each client process holds at most 10,000 descriptors (the open-files limit is 20,000).
        $pipes = [];
        for ($opened = 0; $opened < $connections; $opened += self::PER_CLIENT) {
            $client = \proc_open([\PHP_BINARY, self::BURST, $master->address, (string) self::PER_CLIENT, '6'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $out);
            self::assertIsResource($client);
            $this->clients[] = $client;
            $pipes[] = $out[1];
        }
        foreach ($pipes as $pipe) {
            self::assertStringStartsWith('connected', (string) \fgets($pipe));
        }
        \usleep(2_500_000); // the worker accepts what the backlog holds
    }
}
