<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** The same application code submits tasks under a master, a single process, and with no job workers at all. */
final class JobServerModesTest extends TestCase
{
    private ?MasterProcess $server = null;

    protected function tearDown(): void
    {
        $this->server?->kill();
    }

    public function testAnHttpWorkerSendsTasksToTheMastersJobWorkers(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=2', '--log-level=debug']);

        $answer = $this->getJson($server, '/echo?v=hello');

        self::assertSame('hello', $answer['value']);
        self::assertNotSame($answer['server'], $answer['pid'], 'The task ran in the HTTP worker');
        $jobWorkers = \array_column((array) ($server->status()['jobWorkers'] ?? []), 'pid');
        self::assertContains($answer['pid'], $jobWorkers);
        $socket = $server->waitForLog('/Job workers ready: 2 on unix:(\S+)/')[1];
        self::assertSame(0, $server->stop());
        self::assertSame([], MasterProcess::waitUntilExited($jobWorkers, 5.0));
        self::assertDirectoryDoesNotExist(\dirname($socket), 'The private directory of the job socket was left behind');
    }

    public function testASingleProcessServerOwnsItsJobWorkersAndStopsThem(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--job-workers=2', '--job-bootstrap=' . JobPool::BOOTSTRAP, '--log-level=debug']);

        $answer = $this->getJson($server, '/echo?v=single');
        $probe = $this->getJson($server, '/bootstrapped');

        self::assertSame($server->pid, $answer['server']);
        self::assertNotSame($server->pid, $answer['pid']);
        self::assertSame($probe['pid'], $probe['bootstrapped']['pid'] ?? null, 'The bootstrap ran in the job worker');
        $jobWorker = $answer['pid'];
        $socket = $server->waitForLog('/Job workers ready: 2 on unix:(\S+)/')[1];
        self::assertSame(0, $server->stop());
        self::assertSame([], MasterProcess::waitUntilExited([$jobWorker], 5.0), 'A job worker outlived its server');
        self::assertDirectoryDoesNotExist(\dirname($socket), 'The private directory of the job socket was left behind');
    }

    public function testASingleProcessLegacyServerKeepsItsJobWorkersUntilItStops(): void
    {
        // The serving process hands its loop to bin/bobbin's global scope (GlobalScopeHandoffException):
        // its job workers' supervisor must outlive that hand-off, not end (and linger as a zombie) at start.
        // The fork runner: its script's process is a copy of the worker, Bobbin's classes and
        // Jobs::shared() included; a pool's process is a clean PHP (docs/LEGACY.md).
        $this->server = $server = MasterProcess::start(JobPool::LEGACY_SCRIPT, ['--legacy', '--legacy-runner=fork', '--single-process', '--job-workers=1', '--job-bootstrap=' . JobPool::BOOTSTRAP, '--log-level=debug']);

        $answer = $this->getJson($server, '/?v=legacy');

        self::assertSame('legacy', $answer['value']);
        self::assertNotSame($answer['server'], $answer['pid'], 'The task ran in the script\'s own process');
        self::assertNotSame($server->pid, $answer['pid'], 'The task ran in the serving process');
        self::assertStringNotContainsString('served is gone', $server->log());
        self::assertSame(0, $server->stop());
        self::assertSame([], MasterProcess::waitUntilExited([$answer['pid']], 5.0), 'A job worker outlived its server');
    }

    public function testWithoutJobWorkersTasksRunInTheHttpWorkerItself(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=0']);

        $answer = $this->getJson($server, '/echo?v=inline');

        self::assertSame($answer['server'], $answer['pid']);
        self::assertArrayNotHasKey('jobWorkers', (array) $server->status());
    }

    public function testABootstrapThatFailsStopsTheStartWithItsMessage(): void
    {
        $this->server = $server = MasterProcess::startExpectingFailure(
            JobPool::APP,
            ['--workers=1', '--job-workers=2', '--job-bootstrap=' . JobPool::BOOTSTRAP],
            ['BOBBIN_TEST_BOOTSTRAP_FAIL' => '1'],
        );

        self::assertSame(1, $server->wait(20.0));
        self::assertMatchesRegularExpression(
            '~bobbin: --job-bootstrap \S+/bootstrap\.php failed: RuntimeException: the bootstrap was told to fail \(\S+bootstrap\.php:\d+\)~',
            $server->log(),
        );
    }

    public function testABootstrapThatFailsStopsASingleProcessServerToo(): void
    {
        $this->server = $server = MasterProcess::startExpectingFailure(
            JobPool::APP,
            ['--single-process', '--job-workers=1', '--job-bootstrap=' . JobPool::BOOTSTRAP],
            ['BOBBIN_TEST_BOOTSTRAP_FAIL' => '1'],
        );

        self::assertSame(1, $server->wait(20.0));
        self::assertStringContainsString('the bootstrap was told to fail', $server->log());
    }

    public function testJobOptionsThatCannotWorkAreUsageErrors(): void
    {
        foreach ([
            ['--job-nice=20', '--job-nice must lie between 0 and 19'],
            ['--job-timeout=soon', '--job-timeout expects a number of seconds, 0 or more'],
            ['--job-bootstrap=/nonexistent.php', '--job-bootstrap /nonexistent.php does not exist or is not readable'],
            ['--job-max-memory=lots', '--job-max-memory: '],
        ] as [$option, $message]) {
            [$code, , $err] = BobbinChild::runToCompletion(['serve', JobPool::APP, '--listen=127.0.0.1:0', $option]);

            self::assertSame(2, $code, $err);
            self::assertStringContainsString('bobbin: ' . $message, $err);
        }
    }

    public function testASecondServerOnTheSameJobSocketFailsAndLeavesTheFirstOnesSocketAlone(): void
    {
        $socket = \sys_get_temp_dir() . '/bobbin-jobs-test-' . \getmypid() . '-shared.sock';
        $this->server = $first = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=1', '--job-socket=' . $socket]);

        [$code, , $err] = BobbinChild::runToCompletion(['serve', JobPool::APP, '--listen=127.0.0.1:0', '--workers=1', '--job-workers=1', '--job-socket=' . $socket]);

        self::assertSame(1, $code);
        self::assertStringContainsString("bobbin: the job socket $socket is in use by another pool", $err);
        self::assertFileExists($socket);
        self::assertSame('still', $this->getJson($first, '/echo?v=still')['value']);
        self::assertSame(0, $first->stop());
        self::assertFileDoesNotExist($socket);
    }

    public function testJobWorkersOfAMasterKilledWithSigkillStopAndRemoveTheirPrivateSocketDirectory(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=2', '--log-level=debug']);
        $socket = $server->waitForLog('/Job workers ready: 2 on unix:(\S+)/')[1];
        $this->getJson($server, '/echo?v=x');
        $jobWorkers = \array_column((array) ($server->status()['jobWorkers'] ?? []), 'pid');
        self::assertCount(2, $jobWorkers);

        \posix_kill($server->pid, \SIGKILL);

        self::assertSame([], MasterProcess::waitUntilExited($jobWorkers, 5.0), 'A job worker outlived its master');
        self::assertDirectoryDoesNotExist(\dirname($socket));
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
