<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\SharedConnect;

use Bobbin\Async\Cancellation;
use Bobbin\Jobs\Jobs;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use Bobbin\Tests\Support\Nats\NatsServer;

/** The NATS jobs transport's one connection per process, made at the first task. */
final class NatsJobsSharedConnectTest extends SharedConnectContract
{
    private NatsServer $server;
    private JobsWorkerProcess $worker;
    private Jobs $jobs;

    protected function setUpServerAndClient(): void
    {
        $this->server = NatsServer::start(jetStream: false);
        $transport = $this->server->url() . '?subject=contract&heartbeat=0.2';
        $this->worker = new JobsWorkerProcess($transport, ['--job-workers=1', '--durable-slots=0']);
        $this->jobs = JobsWorkerProcess::jobs($transport);
    }

    protected function freeze(): void
    {
        \posix_kill($this->server->pid(), \SIGSTOP);
    }

    protected function thaw(): void
    {
        \posix_kill($this->server->pid(), \SIGCONT);
    }

    protected function ask(?Cancellation $cancellation): mixed
    {
        return $this->jobs->submit(new EchoTask('answer'), $cancellation)->await()['value'];
    }

    protected function expectedAnswer(): mixed
    {
        return 'answer';
    }

    protected function tearDownServerAndClient(): void
    {
        JobsWorkerProcess::closeCallers();
        $this->worker->kill();
        $this->server->remove();
    }
}
