<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Future;
use Bobbin\Jobs\Execution\UnknownTaskClassException;
use Bobbin\Jobs\Task;
use Bobbin\Jobs\TaskFailedException;
use Bobbin\Jobs\TaskNotSerializableException;
use Bobbin\Tests\Support\Jobs\BlobTask;
use Bobbin\Tests\Support\Jobs\BootstrapProbeTask;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\FailingTask;
use Bobbin\Tests\Support\Jobs\JobPool;
use PHPUnit\Framework\TestCase;

/** Results and exceptions come back from real job workers; what cannot travel is refused before it leaves. */
final class JobResultsTest extends TestCase
{
    private static ?JobPool $pool = null;

    public static function setUpBeforeClass(): void
    {
        self::$pool = new JobPool(['--job-bootstrap=' . JobPool::BOOTSTRAP]);
    }

    public static function tearDownAfterClass(): void
    {
        self::$pool?->kill();
        self::$pool = null;
    }

    private static function pool(): JobPool
    {
        \assert(self::$pool !== null);

        return self::$pool;
    }

    public function testAResultComesBackFromAJobWorkerProcess(): void
    {
        $result = self::pool()->jobs()->submit(new EchoTask(['fleet' => [1, 2.5, 'x', null]]))->await();

        self::assertSame(['fleet' => [1, 2.5, 'x', null]], $result['value']);
        self::assertContains($result['pid'], self::pool()->jobWorkerPids());
    }

    public function testATaskExceptionComesBackWithItsClassMessageAndTraceFromTheWorker(): void
    {
        try {
            self::pool()->jobs()->submit(new FailingTask(\InvalidArgumentException::class, 'bad registration'))->await();
            self::fail('No exception');
        } catch (TaskFailedException $failed) {
            self::assertSame(\InvalidArgumentException::class, $failed->remoteClass());
            self::assertSame('bad registration', $failed->remoteMessage());
            self::assertSame(42, $failed->remote->code);
            self::assertStringContainsString('FailingTask->deeper()', $failed->remoteTrace());
            self::assertStringContainsString('TaskRunner->run(', $failed->remoteTrace(), 'The trace is the job worker\'s');
            self::assertSame(\LogicException::class, $failed->remote->previous?->class);
        }
    }

    public function testAClosureIsRefusedAtSubmitAndNothingIsSent(): void
    {
        $jobs = self::pool()->jobs();
        try {
            $jobs->submit(new EchoTask(['format' => static fn (): string => 'x']));
            self::fail('The task was accepted');
        } catch (TaskNotSerializableException $refused) {
            self::assertSame(EchoTask::class . "->value['format']", $refused->path);
        }
        self::assertSame(0, $jobs->statistics()->submitted);
    }

    public function testAResourceIsRefusedAtSubmit(): void
    {
        $this->expectException(TaskNotSerializableException::class);
        $this->expectExceptionMessage(EchoTask::class . '->value is a resource (stream)');
        self::pool()->jobs()->submit(new EchoTask(\STDOUT));
    }

    public function testAOneMegabyteResultArrivesIntact(): void
    {
        $result = self::pool()->jobs()->submit(new BlobTask(1 << 20, 7))->await();

        self::assertIsString($result);
        self::assertSame(1 << 20, \strlen($result));
        self::assertSame(\hash('sha256', BlobTask::make(1 << 20, 7)), \hash('sha256', $result));
    }

    public function testManyLargeResultsAtOnceArriveIntact(): void
    {
        $futures = [];
        for ($seed = 0; $seed < 6; $seed++) {
            $futures[$seed] = self::pool()->jobs()->submit(new BlobTask(300_000 + $seed, $seed));
        }
        foreach (Future::awaitAll($futures) as $seed => $result) {
            self::assertSame(BlobTask::make(300_000 + $seed, $seed), $result);
        }
    }

    public function testATaskWhoseClassTheWorkerCannotLoadFailsWithAClearMessage(): void
    {
        try {
            self::pool()->jobs()->submit(new NotAutoloadableTask())->await();
            self::fail('No exception');
        } catch (TaskFailedException $failed) {
            self::assertSame(UnknownTaskClassException::class, $failed->remoteClass());
            self::assertSame(
                'The class ' . NotAutoloadableTask::class . ' is not known in the job worker: make it autoloadable there (--job-bootstrap)',
                $failed->remoteMessage(),
            );
        }
    }

    public function testTheBootstrapRanOnceInEachJobWorkerBeforeItsTasks(): void
    {
        $seen = [];
        $jobs = self::pool()->jobs();
        for ($i = 0; $i < 20 && \count($seen) < 2; $i++) {
            $probes = $jobs->map(\array_fill(0, 4, new BootstrapProbeTask()), 4);
            foreach ($probes as $probe) {
                self::assertIsArray($probe['bootstrapped']);
                self::assertSame($probe['pid'], $probe['bootstrapped']['pid'], 'The mark was made in the same job worker');
                $seen[$probe['pid']] = $probe['bootstrapped']['at'];
            }
        }
        self::assertCount(2, $seen, 'Both job workers answered');
    }

    public function testMapReturnsEveryResultUnderItsKey(): void
    {
        $tasks = [];
        for ($i = 0; $i < 50; $i++) {
            $tasks["t$i"] = new EchoTask($i);
        }

        $results = self::pool()->jobs()->map($tasks, 8);

        self::assertSame(\array_keys($tasks), \array_keys($results));
        self::assertSame(\range(0, 49), \array_column($results, 'value'));
    }
}

/** Defined here only: the job workers' autoloader cannot find it. */
final class NotAutoloadableTask implements Task
{
    public function run(): int
    {
        return 1;
    }
}
