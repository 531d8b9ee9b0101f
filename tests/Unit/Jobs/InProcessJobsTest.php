<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Jobs;

use Bobbin\Async\CancellationSource;
use Bobbin\Async\CancelledException;
use Bobbin\Jobs\Execution\ResultNotSerializableException;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\TaskFailedException;
use Bobbin\Jobs\TaskNotSerializableException;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\FailingTask;
use Bobbin\Tests\Support\Jobs\SlowTask;
use PHPUnit\Framework\TestCase;

/** Without a server (PHP-FPM, a script) submit() runs the task here, with the same answers as a job worker gives. */
final class InProcessJobsTest extends TestCase
{
    protected function tearDown(): void
    {
        Jobs::install(null);
    }

    public function testWithoutAServerTheSharedJobsRunTasksInThisProcess(): void
    {
        $result = Jobs::shared()->submit(new EchoTask(['a' => 1]))->await();

        self::assertSame(['value' => ['a' => 1], 'pid' => \getmypid()], $result);
    }

    public function testJobsInstalledLazilyAreMadeAtTheFirstSharedCallOnly(): void
    {
        $made = 0;
        $jobs = Jobs::inProcess();
        Jobs::installLazily(static function () use (&$made, $jobs): Jobs {
            $made++;

            return $jobs;
        });

        self::assertSame(0, $made, 'Made before anyone asked');
        $first = Jobs::shared();
        $second = Jobs::shared();

        self::assertSame($jobs, $first);
        self::assertSame($first, $second);
        self::assertSame(1, $made);
        Jobs::installLazily(static fn (): Jobs => self::fail('made after install(null)'));
        Jobs::install(null);
        self::assertNotSame($jobs, Jobs::shared());
    }

    public function testTheTaskRunsAtSubmitEvenWhenNobodyAwaitsIt(): void
    {
        $journal = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-jobs-');
        try {
            Jobs::inProcess()->submit(new SlowTask(5, 0.0, $journal))->ignore();

            self::assertSame("start 5 " . \getmypid() . "\nend 5 " . \getmypid() . "\n", \file_get_contents($journal));
        } finally {
            @\unlink($journal);
        }
    }

    public function testTheTaskRunsOnACopyAsItWouldInAnotherProcess(): void
    {
        $task = new CountingTask();
        Jobs::inProcess()->submit($task)->await();

        self::assertSame(0, $task->runs, 'The caller\'s own task object was changed');
    }

    public function testATaskExceptionComesBackWithItsClassMessageCodeTraceAndCause(): void
    {
        try {
            Jobs::inProcess()->submit(new FailingTask(\DomainException::class, 'no such fleet'))->await();
            self::fail('No exception');
        } catch (TaskFailedException $failed) {
            self::assertSame(FailingTask::class, $failed->taskClass);
            self::assertSame(\DomainException::class, $failed->remoteClass());
            self::assertSame('no such fleet', $failed->remoteMessage());
            self::assertSame(42, $failed->remote->code);
            self::assertStringContainsString('FailingTask->deeper()', $failed->remoteTrace());
            self::assertStringEndsWith('FailingTask.php', $failed->remote->file);
            self::assertSame('LogicException', $failed->remote->previous?->class);
            self::assertTrue($failed->isRemote(\LogicException::class));
            self::assertFalse($failed->isRemote(\RuntimeException::class));
            self::assertStringStartsWith('The task Bobbin\Tests\Support\Jobs\FailingTask failed: DomainException: no such fleet (', $failed->getMessage());
        }
    }

    public function testAClosureIsRefusedAtSubmitAndNothingRuns(): void
    {
        $jobs = Jobs::inProcess();
        try {
            $jobs->submit(new HoldingTask(static fn () => 1));
            self::fail('The task was accepted');
        } catch (TaskNotSerializableException $refused) {
            self::assertSame(HoldingTask::class . '->held', $refused->path);
        }
        self::assertSame(0, $jobs->statistics()->submitted);
    }

    public function testAResourceIsRefusedAtSubmit(): void
    {
        $this->expectException(TaskNotSerializableException::class);
        $this->expectExceptionMessage('->held is a resource (stream)');
        Jobs::inProcess()->submit(new HoldingTask(\STDERR));
    }

    public function testAResultThatCannotTravelBackFailsTheTaskByName(): void
    {
        try {
            Jobs::inProcess()->submit(new ClosureReturningTask())->await();
            self::fail('No exception');
        } catch (TaskFailedException $failed) {
            self::assertSame(ResultNotSerializableException::class, $failed->remoteClass());
            self::assertSame("The result of Bobbin\Tests\Unit\Jobs\ClosureReturningTask cannot be sent back: the result['format'] is a Closure", $failed->remoteMessage());
        }
    }

    public function testARequestedCancellationRefusesTheTaskBeforeItRuns(): void
    {
        $source = new CancellationSource();
        $source->cancel();

        $this->expectException(CancelledException::class);
        Jobs::inProcess()->submit(new EchoTask(1), $source->token());
    }

    public function testMapKeepsTheInputKeysAndOrder(): void
    {
        $results = Jobs::inProcess()->map(['x' => new EchoTask(1), 'y' => new EchoTask(2), 7 => new EchoTask(3)], 2);

        self::assertSame(['x', 'y', 7], \array_keys($results));
        self::assertSame([1, 2, 3], \array_column($results, 'value'));
    }

    public function testStatisticsCountEveryEnd(): void
    {
        $jobs = Jobs::inProcess();
        $jobs->submit(new EchoTask(1))->await();
        $jobs->submit(new FailingTask(\RuntimeException::class, 'x'))->ignore();

        $stats = $jobs->statistics();
        self::assertSame(2, $stats->submitted);
        self::assertSame(1, $stats->completed);
        self::assertSame(1, $stats->failed);
        self::assertSame(0, $stats->queued);
        self::assertSame(0, $stats->running);
        self::assertGreaterThan(0.0, $stats->runSeconds);
    }
}

final class CountingTask implements Task
{
    public int $runs = 0;

    public function run(): int
    {
        return ++$this->runs;
    }
}

final class ClosureReturningTask implements Task
{
    /** @return array{format: \Closure} */
    public function run(): array
    {
        return ['format' => static fn (): string => 'x'];
    }
}
