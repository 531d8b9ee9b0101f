<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * A jobs-worker killed with kill -9 (or by the OOM killer) takes the tasks it was running with it:
 * nobody could receive their results, and a durable one will run again elsewhere.
 */
final class NatsJobsWorkerDeathTest extends TestCase
{
    private ?JobsWorkerProcess $worker = null;
    private string $journal = '';

    protected function setUp(): void
    {
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-nats-journal-');
    }

    protected function tearDown(): void
    {
        $this->worker?->kill();
        JobsWorkerProcess::closeCallers();
        @\unlink($this->journal);
    }

    public function testTheTaskOfAJobsWorkerKilledMidTaskDiesWithItInsteadOfRunningOnOrphaned(): void
    {
        $transport = EmbeddedNats::url() . '?subject=death.' . \bin2hex(\random_bytes(4)) . '&heartbeat=0.2&unavailable_after=5';
        $this->worker = $worker = new JobsWorkerProcess($transport, ['--job-workers=1', '--durable-slots=0', '--prefetch=0']);
        $jobWorkers = $worker->jobWorkerPids();
        $task = JobsWorkerProcess::jobs($transport)->submit(new \Bobbin\Tests\Support\Jobs\SlowTask(7, 2.5, $this->journal));
        $deadline = \microtime(true) + 10;
        while (!\str_contains((string) \file_get_contents($this->journal), 'start 7 ') && \microtime(true) < $deadline) {
            Async::delay(0.05);
        }
        self::assertStringContainsString('start 7 ', (string) \file_get_contents($this->journal), 'the task started');

        \posix_kill($worker->pid, \SIGKILL); // the jobs-worker alone, as the OOM killer would

        try {
            $task->await();
            self::fail('the task of a dead jobs-worker succeeded');
        } catch (JobWorkerCrashedException) {
        }
        self::assertSame([], MasterProcess::waitUntilExited($jobWorkers, 2.0), 'the job worker outlived its jobs-worker');
        Async::delay(2.5); // past the task's own end
        self::assertStringNotContainsString('end 7 ', (string) \file_get_contents($this->journal), 'an orphan finished the task');
    }
}
