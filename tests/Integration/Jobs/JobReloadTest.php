<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\SlowTask;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** A reload and recycling replace job workers without losing or repeating a task. */
final class JobReloadTest extends TestCase
{
    private ?JobPool $pool = null;
    private string $journal = '';

    protected function setUp(): void
    {
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jobs-journal-');
    }

    protected function tearDown(): void
    {
        $this->pool?->kill();
        @\unlink($this->journal);
    }

    public function testSighupWithTasksRunningAndQueuedLetsAllFinishOnOldAndNewWorkers(): void
    {
        $this->pool = $pool = new JobPool();
        $old = $pool->jobWorkerPids();
        $jobs = $pool->jobs();
        $futures = [];
        for ($id = 0; $id < 20; $id++) {
            $futures[$id] = $jobs->submit(new SlowTask($id, 0.15, $this->journal));
        }
        while (\substr_count((string) \file_get_contents($this->journal), 'start') < 2) {
            Async::delay(0.01);
        }

        $pool->master->signal(\SIGHUP);
        $results = Future::awaitAll($futures);

        self::assertSame(\range(0, 19), \array_column($results, 'id'));
        $pids = \array_unique(\array_column($results, 'pid'));
        self::assertNotEmpty(\array_intersect($pids, $old), 'The old workers finished the tasks they had');
        self::assertNotEmpty(\array_diff($pids, $old), 'New workers took the queued tasks');
        \preg_match_all('/^end (\d+) /m', (string) \file_get_contents($this->journal), $ends);
        $ended = \array_map(\intval(...), $ends[1]);
        \sort($ended);
        self::assertSame(\range(0, 19), $ended, 'A task was lost or ran twice');
        $new = $pool->awaitJobWorkers(static fn (array $now): bool => \count($now) === 2 && \array_intersect($now, $old) === []);
        self::assertSame([], \array_intersect($new, $old));
        $pool->master->waitForLog('/Job workers reloaded: 2 new one\(s\) take tasks; 2 old one\(s\) finish theirs/');
        self::assertSame(0, $jobs->statistics()->crashed);
        self::assertSame(0, $pool->master->stop());
    }

    public function testAJobWorkerIsReplacedAfterItsMaximumOfTasksAndNoTaskFails(): void
    {
        $this->pool = $pool = new JobPool(['--job-workers=1', '--job-max-tasks=10']);
        $first = $pool->jobWorkerPids();
        $jobs = $pool->jobs();

        $pids = [];
        for ($i = 0; $i < 40; $i++) {
            $pids[] = $jobs->submit(new EchoTask($i))->await()['pid'];
            // A retiring worker takes tasks until its replacement is ready: give one time to boot.
            Async::delay(0.03);
        }

        self::assertGreaterThanOrEqual(3, \count(\array_unique($pids)), 'Workers were not recycled: ' . \implode(',', \array_unique($pids)));
        self::assertSame($first[0], $pids[0]);
        self::assertMatchesRegularExpression('/Job worker \d+ retires \(ran (9|10|11) tasks\); starting its replacement/', $pool->master->log());
        self::assertSame(40, $jobs->statistics()->completed);
    }

    public function testStoppingTheServerLetsTheRunningTaskFinish(): void
    {
        $this->pool = $pool = new JobPool();
        $jobs = $pool->jobs();
        $future = $jobs->submit(new SlowTask(1, 0.5, $this->journal));
        while (!\str_contains((string) \file_get_contents($this->journal), 'start 1')) {
            Async::delay(0.01);
        }
        $pids = $pool->jobWorkerPids(null);

        $pool->master->signal(\SIGTERM);

        self::assertSame(1, $future->await()['id']);
        self::assertSame(0, $pool->master->wait());
        self::assertSame([], MasterProcess::waitUntilExited($pids, 5.0), 'A job worker outlived its master');
        self::assertFileDoesNotExist($pool->socket);
    }
}
