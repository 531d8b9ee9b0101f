<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Process\MasterProcess;
use Bobbin\Tests\Support\Process\RequestFlood;
use PHPUnit\Framework\TestCase;

/**
 * Requests a client can drive into a fatal error (an exhausted memory_limit, exit()) cost their
 * worker, never the server: PHP-FPM answers each with 500 and keeps serving, and so must we.
 * bench/fatal-flood/run.php (beside PHP-FPM) and bench/soak/run.php run the same at a larger scale.
 */
final class FatalErrorFloodTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    public function testRequestsThatExhaustMemoryGet500WhileHealthyOnesGet200AndTheServerStaysUp(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2', '--memory-limit=32M']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $paths = [];
        for ($i = 0; $i < 160; $i++) {
            $paths[] = $i % 4 === 0 ? '/oom' : '/?n=' . $i;
        }

        $results = RequestFlood::run($master->address, $paths, 10);

        $oom = $healthy = $unavailable = [];
        foreach ($results as $result) {
            if ($result['status'] === 503) {
                $unavailable[] = $result;
            } elseif ($result['path'] === '/oom') {
                $oom[] = $result['status'];
            } else {
                $healthy[] = $result['status'];
            }
        }
        $summary = \json_encode(RequestFlood::tally($results)) . "\n" . $master->log();
        self::assertSame(\array_fill(0, \count($oom), 500), $oom, $summary);
        self::assertSame(\array_fill(0, \count($healthy), 200), $healthy, $summary);
        // A 503 only for a request that was in flight on a worker another request killed: at
        // most the other 9 connections for each of the 40 fatal requests, and never a reset.
        self::assertLessThanOrEqual(40 * 9, \count($unavailable), $summary);
        self::assertGreaterThanOrEqual(10, \count($oom), $summary);
        self::assertGreaterThanOrEqual(10, \count($healthy), $summary);
        foreach ($unavailable as $result) {
            self::assertStringContainsStringIgnoringCase('Retry-After:', $result['headers'], $summary);
        }
        self::assertTrue($master->isRunning(), $summary);
        self::assertStringNotContainsString('crash loop', $master->log());
        $after = RequestFlood::run($master->address, ['/', '/', '/'], 3);
        self::assertSame([200, 200, 200], \array_column($after, 'status'), $summary);
        self::assertSame(0, $master->stop());
    }

    public function testRequestsThatCallExitAreAnsweredAndTheServerStaysUp(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        $paths = [];
        for ($i = 0; $i < 60; $i++) {
            $paths[] = $i % 3 === 0 ? '/exit-now' : '/';
        }

        $results = RequestFlood::run($master->address, $paths, 6);

        $summary = \json_encode(RequestFlood::tally($results)) . "\n" . $master->log();
        foreach ($results as $result) {
            self::assertContains($result['status'], $result['path'] === '/' ? [200, 503] : [500, 503], $summary);
        }
        self::assertTrue($master->isRunning(), $summary);
        self::assertSame(0, $master->stop());
    }
}
