<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** `serve --pid-file`: one server per pid file, and a server removes only its own. */
final class PidFileTest extends TestCase
{
    private const APP = __DIR__ . '/../../Support/Process/ini-app.php';

    public function testASecondServeWithALivePidFileRefusesToStartAndLeavesTheFirstAlone(): void
    {
        $first = MasterProcess::start(self::APP, ['--workers=1', '--job-workers=0']);

        [$code, , $err] = ServerProcess::runToCompletion(['serve', self::APP, '--listen=127.0.0.1:0', '--workers=1', '--job-workers=0', '--pid-file=' . $first->pidFile], [], 20.0);

        self::assertSame(1, $code, $err);
        self::assertStringContainsString(\sprintf('names process %d, which is running', $first->pid), $err);
        self::assertSame((string) $first->pid, \trim((string) \file_get_contents($first->pidFile)));
        self::assertTrue($first->isRunning());
        $first->signal(\SIGTERM);
        self::assertSame(0, $first->wait());
        self::assertFileDoesNotExist($first->pidFile);
    }

    public function testAPidFileLeftByAProcessThatIsGoneIsReplaced(): void
    {
        $pidFile = \sys_get_temp_dir() . '/bobbin-pidfile-test-' . \bin2hex(\random_bytes(4)) . '.pid';
        \file_put_contents($pidFile, "2147483000\n"); // no such process
        $child = new BobbinChild(['serve', self::APP, '--listen=127.0.0.1:0', '--single-process', '--job-workers=0', '--pid-file=' . $pidFile]);
        try {
            $child->awaitLog('/Listening on/', 15.0, 'serve did not start over a stale pid file');
            self::assertSame((string) $child->pid, \trim((string) \file_get_contents($pidFile)));
        } finally {
            $child->stop();
            @\unlink($pidFile);
        }
    }

    /** @return iterable<string, array{list<string>}> */
    public static function modes(): iterable
    {
        yield 'a master' => [['--workers=1', '--job-workers=0']];
        yield 'a single process' => [['--single-process', '--job-workers=0']];
    }

    /** @param list<string> $options */
    #[\PHPUnit\Framework\Attributes\DataProvider('modes')]
    public function testAServerRemovesThePidFileOnlyWhileItHoldsItsOwnPid(array $options): void
    {
        $server = MasterProcess::start(self::APP, $options);
        $someoneElse = (string) \getmypid();
        \file_put_contents($server->pidFile, $someoneElse . "\n"); // e.g. a server started after it

        $server->signal(\SIGTERM);
        self::assertSame(0, $server->wait());

        self::assertFileExists($server->pidFile);
        self::assertSame($someoneElse, \trim((string) \file_get_contents($server->pidFile)));
        \unlink($server->pidFile);
    }
}
