<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Jobs\JobQueueFullException;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\SlowTask;
use PHPUnit\Framework\TestCase;

/** The bounded queue: submit() waits for room, never drops; every task runs once; a withdrawn one never runs. */
final class JobQueueTest extends TestCase
{
    private static ?JobPool $pool = null;
    private string $journal = '';

    public static function setUpBeforeClass(): void
    {
        self::$pool = new JobPool();
    }

    public static function tearDownAfterClass(): void
    {
        self::$pool?->kill();
        self::$pool = null;
    }

    protected function setUp(): void
    {
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jobs-journal-');
    }

    protected function tearDown(): void
    {
        @\unlink($this->journal);
    }

    private static function pool(): JobPool
    {
        \assert(self::$pool !== null);

        return self::$pool;
    }

    public function testAThousandTasksThroughTwoWorkersWithAQueueOfTenAllRunExactlyOnce(): void
    {
        $jobs = self::pool()->jobs(queue: 10);
        $futures = [];
        $mostInQueue = 0;
        for ($id = 0; $id < 1000; $id++) {
            $futures[$id] = $jobs->submit(new SlowTask($id, 0.0, $this->journal));
            $stats = $jobs->statistics();
            $mostInQueue = \max($mostInQueue, $stats->queued + $stats->running);
        }
        $results = Future::awaitAll($futures);

        self::assertSame(\range(0, 999), \array_column($results, 'id'));
        self::assertSame(10, $mostInQueue, 'The queue filled up and never went past its capacity');
        $starts = [];
        \preg_match_all('/^start (\d+) (\d+)$/m', (string) \file_get_contents($this->journal), $lines, \PREG_SET_ORDER);
        foreach ($lines as [, $id, $pid]) {
            $starts[(int) $id][] = (int) $pid;
        }
        \ksort($starts);
        self::assertSame(\range(0, 999), \array_keys($starts), 'Some task never ran');
        foreach ($starts as $id => $pids) {
            self::assertCount(1, $pids, "Task $id ran more than once");
            self::assertSame($results[$id]['pid'], $pids[0]);
        }
        self::assertCount(2, \array_unique(\array_column($results, 'pid')), 'Both job workers took tasks');
        $stats = $jobs->statistics();
        self::assertSame([1000, 1000, 0, 0, 0], [$stats->submitted, $stats->completed, $stats->queued, $stats->running, $stats->waiting]);
    }

    public function testSubmitWaitsForRoomAndGivesUpAfterTheQueueWaitWithoutSendingAnything(): void
    {
        $jobs = self::pool()->jobs(queue: 1, queueWait: 0.3);
        $first = $jobs->submit(new SlowTask(1, 1.0, $this->journal));

        $started = \microtime(true);
        try {
            $jobs->submit(new SlowTask(2, 0.0, $this->journal));
            self::fail('The second task was accepted into a full queue');
        } catch (JobQueueFullException $full) {
            self::assertSame('The job queue stayed full (1 tasks queued or running) for 0.3 s; nothing was sent', $full->getMessage());
        }
        self::assertGreaterThanOrEqual(0.3, \microtime(true) - $started);
        self::assertSame(1, $first->await()['id']);
        self::assertSame(1, $jobs->statistics()->rejected);
        self::assertStringNotContainsString('start 2', (string) \file_get_contents($this->journal));
    }

    public function testTheCallersCancellationEndsTheWaitForRoom(): void
    {
        $jobs = self::pool()->jobs(queue: 1, queueWait: 10.0);
        $first = $jobs->submit(new SlowTask(1, 1.0, $this->journal));

        $started = \microtime(true);
        try {
            $jobs->submit(new SlowTask(2, 0.0, $this->journal), new TimeoutCancellation(0.2));
            self::fail('No cancellation');
        } catch (CancelledException $cancelled) {
            self::assertNotInstanceOf(JobQueueFullException::class, $cancelled);
        }
        self::assertLessThan(0.9, \microtime(true) - $started);
        $first->await();
        self::assertSame(0, $jobs->statistics()->rejected);
    }

    public function testATaskWithdrawnWhileQueuedNeverRunsAndTheStatisticsSayWhere(): void
    {
        $jobs = self::pool()->jobs();
        $busy = [$jobs->submit(new SlowTask(1, 1.0, $this->journal)), $jobs->submit(new SlowTask(2, 1.0, $this->journal))];
        $withdrawn = $jobs->submit(new SlowTask(3, 0.0, $this->journal), new TimeoutCancellation(0.5));
        $deadline = \microtime(true) + 5.0;
        while (\substr_count((string) \file_get_contents($this->journal), 'start') < 2 && \microtime(true) < $deadline) {
            Async::delay(0.01);
        }
        $stats = $jobs->statistics();
        self::assertSame([2, 1], [$stats->running, $stats->queued], 'Two running, one in the pool\'s queue');

        try {
            $withdrawn->await();
            self::fail('The queued task was not withdrawn');
        } catch (CancelledException) {
        }
        Future::awaitAll($busy);
        Async::delay(0.3); // a worker would have taken it by now
        self::assertStringNotContainsString('start 3', (string) \file_get_contents($this->journal));
        $stats = $jobs->statistics();
        self::assertSame([1, 2, 0, 0], [$stats->cancelled, $stats->completed, $stats->running, $stats->queued]);
        self::assertGreaterThan(0.0, $stats->queueSeconds);
        self::assertGreaterThanOrEqual(1.0, $stats->maxRunSeconds);
    }

    public function testACallerThatStopsWaitingLeavesTheRunningTaskToFinishAndItsWorkerGoesOn(): void
    {
        $jobs = self::pool()->jobs();
        $workers = self::pool()->jobWorkerPids();
        $future = $jobs->submit(new SlowTask(1, 0.5, $this->journal), new TimeoutCancellation(0.2));

        try {
            $future->await();
            self::fail('The caller was not cancelled');
        } catch (CancelledException) {
        }
        $deadline = \microtime(true) + 5.0;
        while (!\str_contains((string) \file_get_contents($this->journal), 'end 1') && \microtime(true) < $deadline) {
            Async::delay(0.02);
        }

        self::assertStringContainsString('end 1', (string) \file_get_contents($this->journal), 'The task was cut short');
        self::assertSame(2, $jobs->submit(new SlowTask(2, 0.0))->await()['id']);
        self::assertSame($workers, self::pool()->jobWorkerPids(), 'A worker was replaced');
        self::assertSame([1, 0], [$jobs->statistics()->cancelled, $jobs->statistics()->crashed]);
    }
}
