<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Jobs;

use Bobbin\Jobs\Security\JobSigner;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\FrameDecoder;
use Bobbin\Jobs\Wire\JobWire;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\Jobs\EchoTask;
use Bobbin\Tests\Support\Jobs\Gadget;
use Bobbin\Tests\Support\Jobs\JobPool;
use Bobbin\Tests\Support\Jobs\TestJobKeys;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The local job socket: only the server's user can reach it, and even then a job worker runs
 * only what is signed with the key this server start made (which its HTTP workers inherit).
 */
final class JobSocketSecurityTest extends TestCase
{
    private ?MasterProcess $server = null;
    private string $marker = '';

    protected function setUp(): void
    {
        $this->marker = \sys_get_temp_dir() . '/bobbin-gadget-' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        $this->server?->kill();
        @\unlink($this->marker);
    }

    public function testTheDefaultJobSocketIsModeSixHundredInADirectoryOnlyItsUserEnters(): void
    {
        $this->server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=1', '--log-level=debug']);
        $socket = $this->server->waitForLog('/Job workers ready: 1 on unix:(\S+)/')[1];

        \clearstatcache();
        self::assertSame('0600', \sprintf('%04o', \fileperms($socket) & 0o777));
        self::assertSame('0700', \sprintf('%04o', \fileperms(\dirname($socket)) & 0o777));
        self::assertSame(\posix_geteuid(), \fileowner($socket));
    }

    public function testAGivenJobSocketPathIsModeSixHundredToo(): void
    {
        $pool = new JobPool();

        \clearstatcache();
        self::assertSame('0600', \sprintf('%04o', \fileperms($pool->socket) & 0o777));
        $pool->kill();
    }

    public function testTasksNotSignedWithThisStartsKeyAreRefusedUnreadWhileTheHttpWorkersAreServed(): void
    {
        // No --jobs-key-file: the key is made at this start and known only to the server's processes.
        $this->server = $server = MasterProcess::start(JobPool::APP, ['--workers=1', '--job-workers=1', '--log-level=debug']);
        $socket = $server->waitForLog('/Job workers ready: 1 on unix:(\S+)/')[1];
        $gadgetTask = JobWire::task(new EncodedTask(EchoTask::class, \str_replace('s:1:"x";', Gadget::payload($this->marker), \serialize(new EchoTask('x'))), 5.0));

        $unsigned = $this->send($socket, $gadgetTask);
        $signedWithAnotherKey = $this->send($socket, (new JobSigner(TestJobKeys::keys()))->sealTask($gadgetTask, '', \microtime(true) + 60));

        self::assertSame(['', ''], [$unsigned, $signedWithAnotherKey], 'the job worker closed both connections without a word');
        self::assertFileDoesNotExist($this->marker, 'a gadget was instantiated');
        $response = (new HttpClient('127.0.0.1', $server->port()))->request('GET', '/echo?v=inherited');
        self::assertSame(200, $response->status, $response->body);
        self::assertStringContainsString('"value":"inherited"', $response->body);
        $server->waitForLog('/Refused a task from unix:\S+: a message of \d+ bytes that is not a signed job message/');
        self::assertStringNotContainsString('a message signed with key', $server->log(), 'one line per source');
    }

    /** Sends one frame as a caller would and returns all the job worker answered before it closed. */
    private function send(string $socket, string $payload): string
    {
        $stream = \stream_socket_client('unix://' . $socket, $errno, $errstr, 5.0);
        self::assertNotFalse($stream, $errstr);
        \stream_set_timeout($stream, 5);
        \fwrite($stream, FrameDecoder::frame($payload));
        $answer = (string) \stream_get_contents($stream);
        \fclose($stream);

        return $answer;
    }
}
