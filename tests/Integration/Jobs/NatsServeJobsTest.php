<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\TestJobKeys;
use Bobbin\Tests\Support\Nats\EmbeddedNats;
use Bobbin\Tests\Support\Nats\JobsWorkerProcess;
use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** `serve --jobs-transport=nats://…` beside a `jobs-worker`: the application code is the local pool's. */
final class NatsServeJobsTest extends TestCase
{
    private ?MasterProcess $server = null;
    private ?JobsWorkerProcess $worker = null;

    protected function tearDown(): void
    {
        $this->server?->kill();
        $this->worker?->kill();
    }

    public function testTheHttpWorkersTasksRunInTheJobsWorkersJobWorkersWithItsBootstrap(): void
    {
        $transport = EmbeddedNats::url() . '?subject=serve.' . \bin2hex(\random_bytes(4)) . '&heartbeat=0.2';
        $this->worker = $worker = new JobsWorkerProcess($transport, ['--job-workers=2', '--durable-slots=0']);
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=2', '--jobs-transport=' . $transport, '--jobs-key-file=' . TestJobKeys::file(), '--log-level=debug']);

        $answer = $this->getJson($server, '/echo?v=over-nats');
        $probe = $this->getJson($server, '/bootstrapped');

        self::assertSame('over-nats', $answer['value']);
        self::assertContains($answer['pid'], $worker->jobWorkerPids(), 'it ran in a job worker of the jobs-worker');
        self::assertContains($answer['server'], $server->workerPids(), 'an HTTP worker submitted it');
        self::assertSame($probe['pid'], $probe['bootstrapped']['pid'] ?? null, 'the jobs-worker\'s --job-bootstrap ran in that job worker');
        self::assertArrayNotHasKey('jobWorkers', (array) $server->status(), 'no local job workers');
        self::assertSame(0, $server->stop());
        self::assertSame(0, $worker->stop());
    }

    public function testWithTheJobsWorkerGoneARequestGetsUnavailableNotAHang(): void
    {
        $transport = EmbeddedNats::url() . '?subject=serve.' . \bin2hex(\random_bytes(4)) . '&unavailable_after=0.5';
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--jobs-transport=' . $transport], ['BOBBIN_JOBS_KEY' => TestJobKeys::key()]);

        $response = (new HttpClient('127.0.0.1', $server->port()))->request('GET', '/echo?v=x');

        self::assertSame(500, $response->status);
        self::assertStringContainsString('JobWorkersUnavailableException', $response->body);
    }

    public function testATransportThatIsNotNatsIsAUsageError(): void
    {
        [$code, , $err] = BobbinChild::runToCompletion(['serve', JobPool::APP, '--listen=127.0.0.1:0', '--jobs-transport=redis://x']);

        self::assertSame(2, $code, $err);
        self::assertStringContainsString('--jobs-transport expects local or nats://host:port', $err);
    }

    /** @return array<string, mixed> */
    private function getJson(MasterProcess $server, string $target): array
    {
        $response = (new HttpClient('127.0.0.1', $server->port()))->request('GET', $target);
        self::assertSame(200, $response->status, $response->body . "\n" . $server->log());
        $data = \json_decode($response->body, true);
        self::assertIsArray($data);

        return $data;
    }
}
