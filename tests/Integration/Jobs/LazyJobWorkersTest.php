<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\JobServerProbes;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * Without --job-workers the pool is bound but its workers start at the first task: an
 * application that never submits one runs a master and its HTTP workers, nothing more.
 */
final class LazyJobWorkersTest extends TestCase
{
    use JobServerProbes;

    private ?MasterProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->kill();
    }

    public function testAServerWhoseApplicationSubmitsNoTaskRunsNoJobWorker(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1']);

        self::assertSame('ok', $this->get($server, '/health'));
        \usleep(300_000);

        self::assertSame($server->workerPids(), self::childrenOf($server->pid), 'The master runs more than its HTTP worker');
        self::assertSame([], (array) ($server->status()['jobWorkers'] ?? []));
    }

    public function testTheFirstTaskStartsTheJobWorkersAndIsServedByOne(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--log-level=debug']);

        $answer = \json_decode($this->get($server, '/echo?v=first'), true);

        self::assertIsArray($answer);
        self::assertSame('first', $answer['value']);
        self::assertNotSame($answer['server'], $answer['pid'], 'The task ran in the HTTP worker');
        $server->waitForLog('/First task: starting \d+ job worker\(s\)/');
        self::assertContains($answer['pid'], self::childrenOf($server->pid));
        self::assertSame(0, $server->stop());
    }

    public function testAnExplicitJobWorkersCountStartsThemWithTheServer(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=2', '--log-level=debug']);

        $server->waitForLog('/Job workers ready: 2 on unix:/');

        self::assertCount(3, self::childrenOf($server->pid));
    }

    public function testASingleProcessServerStartsItsJobWorkersAtTheFirstTaskToo(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug']);

        self::assertSame('ok', $this->get($server, '/health'));
        self::assertSame([], self::childrenOf($server->pid), 'A supervisor or job workers started before any task');

        $answer = \json_decode($this->get($server, '/echo?v=single'), true);

        self::assertIsArray($answer);
        self::assertSame('single', $answer['value']);
        $supervisor = self::childrenOf($server->pid);
        self::assertCount(1, $supervisor, 'The first task starts one supervisor for the job workers (LateJobSupervisorTest)');
        self::assertContains($answer['pid'], self::childrenOf($supervisor[0]));
        self::assertSame(0, $server->stop());
    }
}
