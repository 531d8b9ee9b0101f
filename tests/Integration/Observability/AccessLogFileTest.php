<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Observability;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * The access log in a file (--access-log-file), reopened on SIGUSR1 as logrotate expects, and a
 * byte count that is the body's, as in the common log format (issue 38).
 */
final class AccessLogFileTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Http/test-app.php';

    private ?MasterProcess $server = null;
    private string $directory = '';

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-access-log-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir($this->directory);
    }

    protected function tearDown(): void
    {
        $this->server?->kill();
        foreach ((array) \glob($this->directory . '/*') as $file) {
            @\unlink((string) $file);
        }
        @\rmdir($this->directory);
    }

    public function testTheByteCountIsTheBodysNotTheHeads(): void
    {
        $this->server = $server = MasterProcess::start(self::APP, ['--workers=1', '--access-log']);

        self::assertSame('Hello, World!', HttpGet::fetch($server->address, '/?small')['body']);
        self::assertSame(100000, \strlen(HttpGet::fetch($server->address, '/big?bytes=100000')['body']));
        self::assertSame(500, HttpGet::fetch($server->address, '/throw')['status']);

        $server->waitForLog('~"GET /\?small HTTP/1\.0" 200 13 ~');
        $server->waitForLog('~"GET /big\?bytes=100000 HTTP/1\.0" 200 100000 ~');
        $server->waitForLog('~"GET /throw HTTP/1\.0" 500 ' . \strlen("500 Internal Server Error\n") . ' ~');
    }

    public function testLinesGoToTheFileAndSigusr1ReopensItInEveryWorker(): void
    {
        $path = $this->directory . '/access.log';
        $this->server = $server = MasterProcess::start(self::APP, ['--workers=2', '--access-log-file=' . $path]);
        $workers = $server->workerPids();
        $this->requestEach($server, '/?before', 8);
        self::assertSame(8, self::waitForLines($path, '/?before', 8));

        \rename($path, $path . '.1');
        $server->signal(\SIGUSR1);
        $server->waitForLog('~access log reopened~i');
        \usleep(200_000);
        $this->requestEach($server, '/?after', 8);

        self::assertSame(8, self::waitForLines($path, '/?after', 8), 'A worker kept writing to the renamed file');
        self::assertSame(0, \substr_count((string) \file_get_contents($path . '.1'), '/?after'));
        self::assertSame($workers, $server->workerPids(), 'SIGUSR1 ended a worker');
        self::assertStringNotContainsString('GET /?before', $server->log(), 'The lines went to stderr too');
        self::assertSame(0, $server->stop());
    }

    public function testASingleProcessServerReopensItsFileOnSigusr1(): void
    {
        $path = $this->directory . '/single.log';
        $this->server = $server = MasterProcess::start(self::APP, ['--single-process', '--job-workers=0', '--access-log-file=' . $path]);
        $this->requestEach($server, '/?one', 1);
        self::assertSame(1, self::waitForLines($path, '/?one', 1));

        \rename($path, $path . '.1');
        $server->signal(\SIGUSR1);
        $server->waitForLog('~access log reopened~i');
        $this->requestEach($server, '/?two', 1);

        self::assertSame(1, self::waitForLines($path, '/?two', 1));
        self::assertTrue($server->isRunning());
    }

    public function testAFileThatCannotBeOpenedStopsTheStartWithItsPath(): void
    {
        [$code, , $err] = BobbinChild::runToCompletion(['serve', self::APP, '--listen=127.0.0.1:0', '--workers=1', '--access-log-file=' . $this->directory . '/missing/access.log']);

        self::assertSame(1, $code, $err);
        self::assertStringContainsString('bobbin: --access-log-file: cannot open ' . $this->directory . '/missing/access.log', $err);
    }

    private function requestEach(MasterProcess $server, string $target, int $count): void
    {
        for ($i = 0; $i < $count; $i++) {
            // A connection each (HTTP/1.0): the kernel spreads them over the workers.
            self::assertSame(200, HttpGet::fetch($server->address, $target)['status']);
        }
    }

    private static function waitForLines(string $path, string $target, int $count): int
    {
        $deadline = \microtime(true) + 5.0;
        do {
            $found = \substr_count((string) @\file_get_contents($path), '"GET ' . $target . ' ');
            if ($found >= $count) {
                return $found;
            }
            \usleep(50_000);
        } while (\microtime(true) < $deadline);

        return $found;
    }
}
