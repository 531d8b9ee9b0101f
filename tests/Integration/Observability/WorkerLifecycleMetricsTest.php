<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** Worker starts, exits by reason and reloads, counted by the master in /metrics. */
final class WorkerLifecycleMetricsTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    public function testRecyclingACrashAndAReloadAreCountedEachUnderItsReason(): void
    {
        $master = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0', '--max-requests=50', '--admin=127.0.0.1:0']);
        try {
            $admin = $master->waitForLog('/Admin on (\S+):/')[1];
            $first = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1);

            for ($i = 0; $i < 80; $i++) {
                HttpGet::fetch($master->address, '/');
            }
            $master->waitForLog('/Worker \d+ retires \(served/');
            $second = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1 && $pids !== $first);
            \posix_kill($second[0], \SIGKILL);
            $third = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1 && $pids !== $second, 10.0);
            $master->signal(\SIGHUP);
            $master->waitForLog('/Reload complete/');
            $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 1 && $pids !== $third);
            \usleep(300_000);

            $metrics = HttpGet::fetch($admin, '/metrics')['body'];
            self::assertMatchesRegularExpression('/^bobbin_worker_exits_total\{reason="recycled"\} 1$/m', $metrics);
            self::assertMatchesRegularExpression('/^bobbin_worker_exits_total\{reason="crashed"\} 1$/m', $metrics);
            self::assertMatchesRegularExpression('/^bobbin_worker_exits_total\{reason="reloaded"\} 1$/m', $metrics);
            self::assertMatchesRegularExpression('/^bobbin_worker_starts_total 4$/m', $metrics);
            self::assertMatchesRegularExpression('/^bobbin_reloads_total 1$/m', $metrics);
        } finally {
            $master->stop();
        }
    }
}
