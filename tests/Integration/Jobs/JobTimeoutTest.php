<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\SlowTask;
use PHPUnit\Framework\TestCase;

/** A task past its time limit has its job worker killed and replaced; its caller gets a timeout error at the limit. */
final class JobTimeoutTest extends TestCase
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

    public function testATaskPastItsLimitGetsATimeoutErrorAtTheLimitAndItsWorkerIsReplaced(): void
    {
        $this->pool = $pool = new JobPool();
        $before = $pool->jobWorkerPids();
        $jobs = $pool->jobs();

        $started = \microtime(true);
        try {
            $jobs->submit(new SlowTask(1, 10.0, $this->journal, timeLimit: 0.5))->await();
            self::fail('No timeout');
        } catch (JobTimeoutException $timedOut) {
            $after = \microtime(true) - $started;
            self::assertSame(
                \sprintf('The task %s ran past its time limit of 0.5 s: its job worker %d was killed', SlowTask::class, $timedOut->workerPid),
                $timedOut->getMessage(),
            );
        }
        self::assertGreaterThanOrEqual(0.5, $after);
        self::assertLessThan(1.5, $after);
        $victim = $timedOut->workerPid;
        self::assertContains($victim, $before);
        $pool->awaitJobWorkers(static fn (array $pids): bool => \count($pids) === 2 && !\in_array($victim, $pids, true));
        self::assertStringNotContainsString('end 1', (string) \file_get_contents($this->journal), 'The task ran to its end');
        self::assertSame('next', $jobs->submit(new EchoTask('next'))->await()['value']);
        self::assertSame(1, $jobs->statistics()->timedOut);
    }

    public function testTheServersJobTimeoutIsTheLimitOfATaskWithoutItsOwn(): void
    {
        $this->pool = $pool = new JobPool(['--job-timeout=0.3']);

        $started = \microtime(true);
        $response = (new HttpClient('127.0.0.1', $pool->master->port()))->request('GET', '/sleeping?s=5');

        self::assertSame(500, $response->status, $response->body);
        self::assertSame(JobTimeoutException::class, \json_decode($response->body, true)['error'] ?? null, $response->body);
        self::assertLessThan(2.0, \microtime(true) - $started);
    }

    public function testAWorkerWhoseCallerLeftEndsItselfShortlyAfterTheLimit(): void
    {
        $this->pool = $pool = new JobPool();
        $jobs = $pool->jobs();
        $future = $jobs->submit(new SlowTask(1, 30.0, $this->journal, timeLimit: 1.0), new TimeoutCancellation(0.3));
        try {
            $future->await();
            self::fail('The caller was not cancelled');
        } catch (CancelledException) {
        }
        $victim = (int) (\preg_match('/^start 1 (\d+)$/m', (string) \file_get_contents($this->journal), $m) === 1 ? $m[1] : 0);
        self::assertGreaterThan(0, $victim, 'The task had started');

        // Nobody is left to kill it at the limit: the alarm ends it (limit rounded up + 2 s grace).
        $pool->master->waitForLog("/Job worker $victim was killed by signal 14 \\(its task ran past its time limit/", 6.0);
        Async::delay(0.0);
        self::assertSame('ok', $jobs->submit(new EchoTask('ok'))->await()['value']);
    }
}
