<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\ExitingTask;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\SlowTask;
use PHPUnit\Framework\TestCase;

/** A job worker that dies fails the task it was running, that task only; a replacement takes its place. */
final class JobWorkerCrashTest extends TestCase
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

    public function testKillingAJobWorkerMidTaskFailsThatTaskAloneAndTheNextTaskSucceeds(): void
    {
        $this->pool = $pool = new JobPool();
        $before = $pool->jobWorkerPids();
        $jobs = $pool->jobs();
        $victimTask = $jobs->submit(new SlowTask(1, 5.0, $this->journal));
        $bystander = $jobs->submit(new SlowTask(2, 1.0, $this->journal));
        $victim = $this->awaitStart(1);

        \posix_kill($victim, \SIGKILL);

        try {
            $victimTask->await();
            self::fail('The task of the killed worker succeeded');
        } catch (JobWorkerCrashedException $crashed) {
            self::assertSame($victim, $crashed->workerPid);
            self::assertStringContainsString("The job worker $victim ended while running " . SlowTask::class, $crashed->getMessage());
        }
        self::assertSame(2, $bystander->await()['id'], 'The task on the other worker was disturbed');
        self::assertSame('x', $jobs->submit(new EchoTask('x'))->await()['value']);
        $after = $pool->awaitJobWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($victim, $pids, true));
        self::assertCount(1, \array_intersect($before, $after), 'Only the killed worker was replaced');
        self::assertMatchesRegularExpression("/Job worker $victim was killed by signal 9; starting a replacement/", $pool->master->log());
        self::assertSame(1, $jobs->statistics()->crashed);
        self::assertSame(0, $pool->master->stop());
    }

    public function testATaskThatCallsExitFailsWithItsWorkersLastWordsAndTheWorkerIsReplaced(): void
    {
        $this->pool = $pool = new JobPool();
        $jobs = $pool->jobs();

        try {
            $jobs->submit(new ExitingTask())->await();
            self::fail('No exception');
        } catch (JobWorkerCrashedException $crashed) {
            self::assertMatchesRegularExpression('/^The job worker \d+ ended while running ' . \preg_quote(ExitingTask::class, '/') . ': exit\(\) or die was called$/', $crashed->getMessage());
            $pid = $crashed->workerPid;
        }
        $pool->awaitJobWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($pid, $pids, true));
        self::assertMatchesRegularExpression("/Job worker $pid exited with code 7; starting a replacement/", $pool->master->log());
        for ($i = 0; $i < 5; $i++) {
            self::assertSame($i, $jobs->submit(new EchoTask($i))->await()['value']);
        }
    }

    public function testATaskThatExhaustsTheMemoryLimitFailsWithTheFatalError(): void
    {
        $this->pool = $pool = new JobPool(['--memory-limit=64M']);

        try {
            $pool->jobs()->submit(new ExitingTask(outOfMemory: true))->await();
            self::fail('No exception');
        } catch (JobWorkerCrashedException $crashed) {
            self::assertStringContainsString('Allowed memory size of 67108864 bytes exhausted', $crashed->getMessage());
        }
        self::assertSame('after', $pool->jobs()->submit(new EchoTask('after'))->await()['value']);
    }

    public function testCrashingTasksNeverAddUpToACrashLoop(): void
    {
        $this->pool = $pool = new JobPool();
        $jobs = $pool->jobs();
        for ($i = 0; $i < 8; $i++) {
            try {
                $jobs->submit(new ExitingTask())->await();
            } catch (JobWorkerCrashedException) {
            }
        }

        self::assertTrue($pool->master->isRunning(), $pool->master->log());
        self::assertSame('alive', $jobs->submit(new EchoTask('alive'))->await()['value']);
        self::assertSame(8, $jobs->statistics()->crashed);
    }

    /** Waits (running the loop, which sends the tasks) until task $id has written its start line; the pid of its worker. */
    private function awaitStart(int $id): int
    {
        $deadline = \microtime(true) + 10.0;
        while (\preg_match("/^start $id (\\d+)$/m", (string) \file_get_contents($this->journal), $m) !== 1) {
            if (\microtime(true) > $deadline) {
                self::fail("Task $id did not start");
            }
            Async::delay(0.01);
        }

        return (int) $m[1];
    }
}
