<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** Starting a master, asking it for its status, stopping it; and a master that cannot start. */
final class MasterLifecycleTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/app.php';

    private ?MasterProcess $master = null;

    protected function tearDown(): void
    {
        $this->master?->kill();
    }

    public function testTheMasterForksTheRequestedWorkersAndStatusListsEveryOne(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=3']);
        $pids = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 3);
        foreach ($pids as $pid) {
            self::assertSame((string) $master->pid, self::parentOf($pid), "Worker $pid is no child of the master");
        }
        $served = [];
        for ($i = 0; $i < 30; $i++) {
            $client = new RawClient($master->address);
            $client->send("GET /pid HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            $served[(int) ($client->readResponse()['body'] ?? 0)] = true;
            $client->close();
        }
        self::assertSame([], \array_diff(\array_keys($served), $pids), 'A request was served by a process that is not a worker');
        self::assertNotContains($master->pid, \array_keys($served), 'The master served a request');

        [$code, $out] = ServerProcess::runToCompletion(['status', '--pid-file=' . $master->pidFile], [], 20.0);

        self::assertSame(0, $code);
        self::assertStringContainsString('master pid ' . $master->pid, $out);
        foreach ($pids as $pid) {
            self::assertMatchesRegularExpression('/^\s*' . $pid . '\s+ready\s+\d+s\s+\d+\s+\d+\s+[\d.]+[KMG]?B?\s*$/m', $out);
        }
    }

    public function testStopWaitsForTheMasterToExitAndStatusThenSaysItIsNotRunning(): void
    {
        $this->master = $master = MasterProcess::start(self::APP, ['--workers=2']);
        $workers = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);

        [$code, $out] = ServerProcess::runToCompletion(['stop', '--pid-file=' . $master->pidFile], [], 20.0);

        self::assertSame(0, $code, $out);
        self::assertSame(0, $master->wait(5.0));
        self::assertSame([], MasterProcess::waitUntilExited($workers, 1.0), 'A worker outlived the master');
        self::assertFileDoesNotExist($master->pidFile);
        self::assertFileDoesNotExist($master->pidFile . '.status.json');
        [$code, , $err] = ServerProcess::runToCompletion(['status', '--pid-file=' . $master->pidFile], [], 20.0);
        self::assertSame(1, $code);
        self::assertStringContainsString('not running', $err);
    }

    public function testAnAppFileThatThrowsAtBootStopsTheMasterWithTheErrorWithinSeconds(): void
    {
        $started = \microtime(true);
        [$code, , $err] = ServerProcess::runToCompletion(['serve', __DIR__ . '/../../Support/Process/failing-app.php', '--listen=127.0.0.1:0', '--workers=2'], [], 20.0);

        self::assertSame(1, $code);
        self::assertLessThan(10.0, \microtime(true) - $started);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString('the test application cannot reach its database', $err);
    }

    public function testAnAppFileReturningNoHandlerIsAUsageErrorWithAMasterToo(): void
    {
        [$code, , $err] = ServerProcess::runToCompletion(['serve', __DIR__ . '/../../Support/Http/not-a-handler.php', '--listen=127.0.0.1:0', '--workers=2'], [], 20.0);

        self::assertSame(2, $code);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString('returned int', $err);
    }

    public function testACrashLoopIsReportedOnceAndRetriedWithACappedBackOffWhileTheMasterStaysUp(): void
    {
        // Workers that die 0.2 s after they are ready, before serving anything.
        $this->master = $master = MasterProcess::start(__DIR__ . '/../../Support/Process/crashing-app.php', ['--workers=2']);

        $master->waitForLog('/crash loop: \d+ workers in a row died/', 20.0);
        $master->waitForLog('/a replacement starts in 5 s/', 20.0);
        \usleep(2_000_000);

        $log = $master->log();
        self::assertTrue($master->isRunning(), $log);
        self::assertSame(1, \substr_count($log, 'crash loop:'), 'The crash loop is reported once: ' . $log);
        self::assertStringContainsString('exited with code 4', $log);
        self::assertMatchesRegularExpression('/a replacement starts in 5 s/', $log, 'The back-off reaches its cap');
        self::assertSame(0, $master->stop());
        self::assertFileDoesNotExist($master->pidFile);
    }

    public function testAPortAlreadyTakenStopsTheMasterBeforeAnyWorkerStarts(): void
    {
        $blocker = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($blocker);
        $address = (string) \stream_socket_get_name($blocker, false);

        [$code, , $err] = ServerProcess::runToCompletion(['serve', self::APP, '--listen=' . $address, '--workers=2'], [], 20.0);
        \fclose($blocker);

        self::assertSame(1, $code);
        self::assertSame(1, \substr_count($err, "\n"), $err);
        self::assertStringContainsString($address, $err);
    }

    public function testReloadRefusesASingleProcessThatSighupWouldEnd(): void
    {
        $pidFile = \sys_get_temp_dir() . '/bobbin-process-test-single-' . \getmypid() . '.pid';
        $process = \proc_open(
            [\PHP_BINARY, MasterProcess::root() . '/bin/bobbin', 'serve', self::APP, '--listen=127.0.0.1:0', '--single-process', '--pid-file=' . $pidFile],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertNotFalse($process);
        try {
            $deadline = \microtime(true) + 10.0;
            while (!\is_file($pidFile) && \microtime(true) < $deadline) {
                \usleep(50_000);
            }

            [$code, , $err] = ServerProcess::runToCompletion(['reload', '--pid-file=' . $pidFile], [], 20.0);

            self::assertSame(1, $code);
            self::assertStringContainsString('it runs with --single-process, which has no reload', $err);
            self::assertTrue(\proc_get_status($process)['running']);
            [$code] = ServerProcess::runToCompletion(['stop', '--pid-file=' . $pidFile], [], 20.0);
            self::assertSame(0, $code);
        } finally {
            if (\proc_get_status($process)['running']) {
                \posix_kill(\proc_get_status($process)['pid'], \SIGKILL);
            }
            \proc_close($process);
            @\unlink($pidFile);
        }
    }

    private static function parentOf(int $pid): string
    {
        $stat = (string) @\file_get_contents('/proc/' . $pid . '/stat');

        return \preg_match('/\) \S (\d+)/', $stat, $m) === 1 ? $m[1] : '';
    }
}
