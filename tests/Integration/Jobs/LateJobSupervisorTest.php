<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\JobServerProbes;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * --single-process with --job-workers left at auto: the job workers' supervisor itself starts at
 * the first task, as a fresh process (bin/bobbin job-master) that holds none of the serving
 * process's descriptors — not its listening socket, not a client's connection (a copy would keep
 * a closed connection open for its client) — and it still ends with the serving process.
 */
final class LateJobSupervisorTest extends TestCase
{
    use JobServerProbes;

    private ?MasterProcess $server = null;
    /** @var list<int> */
    private array $started = [];

    protected function tearDown(): void
    {
        $this->server?->kill();
        foreach ($this->started as $pid) {
            if (MasterProcess::isAlive($pid)) {
                \posix_kill($pid, \SIGKILL);
            }
        }
    }

    public function testNoProcessRunsBesideTheServerUntilTheFirstTask(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug']);

        self::assertSame('ok', $this->get($server, '/health'));
        \usleep(300_000);

        self::assertSame([], self::childrenOf($server->pid), 'A process was started before any task');
    }

    public function testTheSupervisorStartedAtTheFirstTaskHoldsNoneOfTheServersSockets(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug']);
        // A client connected across the first task: its connection must stay the server's alone.
        $client = \stream_socket_client('tcp://127.0.0.1:' . $server->port(), $errno, $errstr, 5.0) ?: self::fail((string) $errstr);
        \fwrite($client, "GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
        self::assertStringContainsString('ok', (string) \fread($client, 4096));

        $answer = \json_decode($this->get($server, '/echo?v=late'), true);

        self::assertIsArray($answer);
        self::assertSame('late', $answer['value']);
        $children = self::childrenOf($server->pid);
        self::assertCount(1, $children, 'The first task starts one supervisor');
        $this->started = [$supervisor = $children[0], $answer['pid']];
        self::assertContains($answer['pid'], self::childrenOf($supervisor), 'The task ran elsewhere than in a job worker of the supervisor');
        $serverSockets = self::socketInodes($server->pid);
        self::assertGreaterThanOrEqual(3, \count($serverSockets), 'listening socket, two client connections, the supervisor\'s channel');
        self::assertSame([], \array_values(\array_intersect(self::socketInodes($supervisor), $serverSockets)), 'The supervisor holds a socket of the serving process');
        self::assertSame([], \array_values(\array_intersect(self::socketInodes($answer['pid']), $serverSockets)), 'A job worker holds a socket of the serving process');
        self::assertStringContainsString('job-master', (string) \file_get_contents("/proc/$supervisor/cmdline"), 'The supervisor is no copy of the serving process');

        $socket = $server->waitForLog('/Job workers start at the first task on unix:(\S+)/')[1];
        \fclose($client);
        self::assertSame(0, $server->stop());
        self::assertSame([], MasterProcess::waitUntilExited($this->started, 5.0), 'The supervisor or a job worker outlived its server');
        self::assertDirectoryDoesNotExist(\dirname($socket), 'The private directory of the job socket was left behind');
    }

    public function testTheSupervisorEndsWhenTheServingProcessIsKilled(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug']);
        $answer = \json_decode($this->get($server, '/echo?v=first'), true);
        self::assertIsArray($answer);
        $this->started = [...self::childrenOf($server->pid), $answer['pid']];
        self::assertCount(2, $this->started);
        $socket = $server->waitForLog('/Job workers start at the first task on unix:(\S+)/')[1];

        \posix_kill($server->pid, \SIGKILL);

        self::assertSame([], MasterProcess::waitUntilExited($this->started, 5.0), 'The supervisor or a job worker outlived the killed server');
        self::assertDirectoryDoesNotExist(\dirname($socket), 'The private directory of the job socket was left behind');
    }

    public function testACallerThatGivesUpDoesNotEndTheStartForTheNextTask(): void
    {
        // A first task takes a fresh PHP's start (~80 ms); its request's deadline ends it sooner.
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug', '--request-timeout=0.03']);

        $first = (new HttpClient('127.0.0.1', $server->port()))->request('GET', '/echo?v=first');

        self::assertSame(503, $first->status, $first->body);
        $answer = null;
        for ($try = 0; $try < 40 && !\is_array($answer); $try++) {
            \usleep(50_000);
            $response = (new HttpClient('127.0.0.1', $server->port()))->request('GET', '/echo?v=later');
            $answer = $response->status === 200 ? \json_decode($response->body, true) : null;
        }
        self::assertIsArray($answer, $server->log());
        self::assertSame('later', $answer['value']);
        $this->started = self::childrenOf($server->pid);
        self::assertCount(1, $this->started, 'The start was repeated, or left a supervisor behind');
        self::assertSame(1, \substr_count($server->log(), 'starting the job workers\' supervisor'));
        self::assertSame(0, $server->stop());
    }

    public function testConcurrentFirstTasksStartOneSupervisor(): void
    {
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--single-process', '--log-level=debug']);
        $clients = [];
        foreach (['a', 'b', 'c', 'd'] as $value) {
            // All sent before any answer: the four tasks arrive while the supervisor starts.
            $clients[$value] = \stream_socket_client('tcp://127.0.0.1:' . $server->port(), $errno, $errstr, 5.0) ?: self::fail((string) $errstr);
            \fwrite($clients[$value], "GET /echo?v=$value HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        }

        foreach ($clients as $value => $client) {
            \stream_set_timeout($client, 20);
            $response = (string) \stream_get_contents($client);
            $answer = \json_decode(\substr($response, (int) \strpos($response, "\r\n\r\n") + 4), true);
            self::assertIsArray($answer, $response . "\n" . $server->log());
            self::assertSame($value, $answer['value']);
        }
        $this->started = self::childrenOf($server->pid);
        self::assertCount(1, $this->started, 'More than one supervisor started');
        self::assertSame(0, $server->stop());
    }

    /** @return list<string> the inodes of the sockets $pid holds */
    private static function socketInodes(int $pid): array
    {
        $inodes = [];
        foreach ((array) \glob("/proc/$pid/fd/*") as $fd) {
            if (\preg_match('/^socket:\[(\d+)\]$/', (string) @\readlink((string) $fd), $m) === 1) {
                $inodes[] = $m[1];
            }
        }

        return $inodes;
    }
}
