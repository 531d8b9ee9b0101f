<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\TaskFailedException;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\ExitingTask;
use Bobbin\Tests\Support\Jobs\FailingTask;
use Bobbin\Tests\Support\Jobs\SlowTask;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use PHPUnit\Framework\TestCase;

/** Awaited tasks over NATS (at most once) through real `bin/bobbin jobs-worker` processes. */
final class NatsJobsTest extends TestCase
{
    private static string $transport = '';
    /** @var list<JobsWorkerProcess> */
    private static array $workers = [];
    private string $journal = '';

    public static function setUpBeforeClass(): void
    {
        $tag = \bin2hex(\random_bytes(4));
        self::$transport = EmbeddedNats::url() . "?subject=awaited.$tag&stream=AWAITED$tag&heartbeat=0.2";
        self::$workers = [
            new JobsWorkerProcess(self::$transport, ['--job-workers=1', '--durable-slots=0']),
            new JobsWorkerProcess(self::$transport, ['--job-workers=1', '--durable-slots=0']),
        ];
    }

    public static function tearDownAfterClass(): void
    {
        foreach (self::$workers as $worker) {
            $worker->kill();
        }
        self::$workers = [];
    }

    protected function setUp(): void
    {
        $this->journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-nats-journal-');
    }

    protected function tearDown(): void
    {
        JobsWorkerProcess::closeCallers();
        @\unlink($this->journal);
    }

    public function testAResultComesBackFromAJobWorkerOnTheOtherSideOfNats(): void
    {
        $jobs = JobsWorkerProcess::jobs(self::$transport);

        $result = $jobs->submit(new EchoTask(['a' => [1, 2.5, 'ü']]))->await();

        self::assertSame(['a' => [1, 2.5, 'ü']], $result['value']);
        self::assertContains($result['pid'], [...self::$workers[0]->jobWorkerPids(), ...self::$workers[1]->jobWorkerPids()]);
        self::assertSame(1, $jobs->statistics()->completed);
    }

    public function testTasksSubmittedTogetherShareTheProcesssOneConnection(): void
    {
        $sockets = static fn (): int => \count(\array_filter(
            \glob('/proc/self/fd/*') ?: [],
            static fn (string $fd): bool => \str_starts_with((string) @\readlink($fd), 'socket:'),
        ));
        $before = $sockets();

        $results = JobsWorkerProcess::jobs(self::$transport)->map((static function () {
            for ($i = 0; $i < 32; $i++) {
                yield new EchoTask($i);
            }
        })(), 32);

        self::assertCount(32, $results);
        self::assertSame(1, $sockets() - $before, 'one NATS connection, however many tasks asked for it at once');
    }

    public function testATasksExceptionComesBackWithItsClassAndMessage(): void
    {
        try {
            JobsWorkerProcess::jobs(self::$transport)->submit(new FailingTask(\DomainException::class, 'no such aircraft'))->await();
            self::fail('the task did not fail');
        } catch (TaskFailedException $failed) {
            self::assertSame(\DomainException::class, $failed->remoteClass());
            self::assertSame('no such aircraft', $failed->remoteMessage());
        }
    }

    public function testTenThousandTasksOverTwoJobsWorkersAreNoneLostNoneRunTwice(): void
    {
        $jobs = JobsWorkerProcess::jobs(self::$transport, queue: 64);
        $tasks = (function () {
            for ($i = 0; $i < 10_000; $i++) {
                yield $i => new SlowTask($i, 0.0, $this->journal);
            }
        })();

        $results = $jobs->map($tasks, 64);

        self::assertCount(10_000, $results);
        foreach ($results as $i => $result) {
            self::assertSame($i, $result['id']);
        }
        $starts = [];
        foreach (\file($this->journal, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            [$what, $id, $pid] = \explode(' ', $line);
            if ($what === 'start') {
                $starts[(int) $id][] = (int) $pid;
            }
        }
        self::assertCount(10_000, $starts, 'every task ran');
        self::assertSame([], \array_filter($starts, static fn (array $pids): bool => \count($pids) !== 1), 'none ran twice');
        $byWorker = \array_count_values(\array_map(static fn (array $pids): int => $pids[0], $starts));
        $workersOf = static fn (JobsWorkerProcess $p): int => \array_sum(\array_map(static fn (int $pid): int => $byWorker[$pid] ?? 0, $p->jobWorkerPids()));
        self::assertGreaterThan(1000, $workersOf(self::$workers[0]), 'both hosts took their share: ' . \json_encode($byWorker));
        self::assertGreaterThan(1000, $workersOf(self::$workers[1]), 'both hosts took their share: ' . \json_encode($byWorker));
    }

    public function testATaskThatEndsItsJobWorkerIsACrashForItsCallerAndTheNextTaskRuns(): void
    {
        $jobs = JobsWorkerProcess::jobs(self::$transport);
        try {
            $jobs->submit(new ExitingTask())->await();
            self::fail('the task did not crash');
        } catch (JobWorkerCrashedException $crash) {
            self::assertStringContainsString('exit() or die was called', $crash->getMessage());
        }

        self::assertSame('after', $jobs->submit(new EchoTask('after'))->await()['value']);
    }

    public function testATaskPastItsTimeLimitHasItsJobWorkerKilled(): void
    {
        $jobs = JobsWorkerProcess::jobs(self::$transport);
        $started = \microtime(true);
        try {
            $jobs->submit(new SlowTask(1, 10.0, '', 0.5))->await();
            self::fail('the task finished');
        } catch (JobTimeoutException $timeout) {
            self::assertStringContainsString('time limit of 0.5 s', $timeout->getMessage());
        }
        self::assertLessThan(3.0, \microtime(true) - $started);
        self::assertSame('next', $jobs->submit(new EchoTask('next'))->await()['value']);
    }

    public function testAJobsWorkerKilledMidTaskFailsThatTaskAsACrashWithinTheMissedHeartbeats(): void
    {
        // A subject of its own, so the task can only land on the doomed host.
        $transport = EmbeddedNats::url() . '?subject=doomed.' . \bin2hex(\random_bytes(4)) . '&heartbeat=0.2&unavailable_after=5';
        $doomed = new JobsWorkerProcess($transport, ['--job-workers=1', '--durable-slots=0', '--prefetch=0']);
        try {
            $victim = JobsWorkerProcess::jobs($transport)->submit(new SlowTask(7, 30.0, $this->journal));
            $deadline = \microtime(true) + 10;
            while (!\str_contains((string) \file_get_contents($this->journal), 'start 7 ') && \microtime(true) < $deadline) {
                Async::delay(0.05);
            }
            self::assertStringContainsString('start 7 ', (string) \file_get_contents($this->journal), 'the task started');
            $killedAt = \microtime(true);
            $doomed->kill();

            try {
                $victim->await();
                self::fail('a task whose host died succeeded');
            } catch (JobWorkerCrashedException $crash) {
                self::assertStringContainsString('went silent', $crash->getMessage());
            }
            self::assertLessThan(3.0, \microtime(true) - $killedAt, '3 missed heartbeats of 0.2 s');
        } finally {
            $doomed->kill();
        }
    }

    public function testACallerThatGivesUpWithdrawsATaskNoWorkerStartedYet(): void
    {
        $jobs = JobsWorkerProcess::jobs(self::$transport);
        $blockers = [];
        for ($i = 0; $i < 4; $i++) { // two job workers, each with one task running and one prefetched
            $blockers[] = $jobs->submit(new SlowTask(200 + $i, 1.0, $this->journal));
        }
        Async::delay(0.2);
        $source = new CancellationSource();
        $withdrawn = $jobs->submit(new SlowTask(9, 0.0, $this->journal), $source->token());
        Async::delay(0.2);
        $source->cancel();

        try {
            $withdrawn->await();
            self::fail('the withdrawn task came back');
        } catch (CancelledException) {
        }
        foreach ($blockers as $blocker) {
            $blocker->await();
        }
        Async::delay(0.5);
        self::assertStringNotContainsString('start 9 ', (string) \file_get_contents($this->journal), 'it never ran');
    }

    public function testWithoutAnyJobsWorkerTheTaskIsUnavailableAfterTheConfiguredWait(): void
    {
        $jobs = JobsWorkerProcess::jobs(EmbeddedNats::url() . '?subject=nobody.' . \bin2hex(\random_bytes(4)) . '&unavailable_after=0.5');
        $started = \microtime(true);
        try {
            $jobs->submit(new EchoTask('x'))->await();
            self::fail('a task ran without workers');
        } catch (JobWorkersUnavailableException $error) {
            self::assertStringContainsString('nothing was run', $error->getMessage());
        }
        self::assertLessThan(2.0, \microtime(true) - $started);
    }
}
