<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\RawClient;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Process\Load;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/** SIGHUP: new workers with the code on disk now, then the old ones drain; nothing fails. */
final class ReloadTest extends TestCase
{
    private ?MasterProcess $master = null;
    private string $appFile = '';

    protected function setUp(): void
    {
        if (!Load::isAvailable()) {
            self::markTestSkipped('wrk is not installed');
        }
        $this->appFile = \sys_get_temp_dir() . '/bobbin-reload-app-' . \getmypid() . '-' . \bin2hex(\random_bytes(4)) . '.php';
        $this->writeApp('version one');
        // Old enough for opcache to cache it, so the reload must really recompile it.
        \touch($this->appFile, \time() - 60);
    }

    protected function tearDown(): void
    {
        $this->master?->kill();
        @\unlink($this->appFile);
    }

    public function testSighupUnderLoadFailsNoRequestAndTheNewWorkersServeTheChangedCode(): void
    {
        $this->master = $master = MasterProcess::start($this->appFile, ['--workers=2']);
        $old = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        self::assertSame('version one', $this->get('/'));
        $keepAlive = new RawClient($master->address);
        $keepAlive->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('version one', $keepAlive->readResponse()['body'] ?? null);
        $load = Load::start($master->url('/'), 16, 5.0);
        \usleep(1_500_000);

        $this->writeApp('version two');
        $master->signal(\SIGHUP);
        $master->waitForLog('/Reload complete/', 10.0);
        $new = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2 && \array_intersect($pids, $old) === []);
        $result = $load->finish();

        self::assertGreaterThan(1000, $result['requests'], $result['output']);
        self::assertSame(0, $result['non2xx'], $result['output']);
        self::assertSame(0, $result['socketErrors'], $result['output']);
        self::assertSame('version two', $this->get('/'));
        // The keep-alive connection of before the reload: answered once more (with close) by its old worker.
        $keepAlive->send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        $last = $keepAlive->readResponse();
        if ($last !== null) {
            self::assertSame(200, $last['status']);
            self::assertSame(['close'], $last['headers']['connection'] ?? null);
        }
        self::assertTrue($keepAlive->isClosedByServer(), 'The old worker kept a keep-alive connection open');
        self::assertSame([], MasterProcess::waitUntilExited($old), 'An old worker did not exit after the reload');
        self::assertCount(2, $new);
        self::assertSame(0, $master->stop());
    }

    public function testAReloadWhoseNewCodeFailsToBootKeepsTheRunningWorkers(): void
    {
        $this->master = $master = MasterProcess::start($this->appFile, ['--workers=2']);
        $old = $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2);
        \file_put_contents($this->appFile, "<?php\nthrow new \\RuntimeException('the new version is broken');\n");

        [$code, $out] = ServerProcess::runToCompletion(['reload', '--pid-file=' . $master->pidFile], [], 20.0);
        self::assertSame(0, $code);
        self::assertStringContainsString('Reload requested', $out);
        $master->waitForLog('/Reload failed, the running workers stay: .*the new version is broken/', 10.0);

        self::assertSame($old, $master->waitForReadyWorkers(static fn (array $pids): bool => \count($pids) === 2));
        self::assertSame('version one', $this->get('/'));
        self::assertTrue($master->isRunning());
        self::assertSame(0, $master->stop());
    }

    private function writeApp(string $text): void
    {
        $source = (string) \file_get_contents(__DIR__ . '/../../Support/Process/app.php');
        \file_put_contents($this->appFile, \str_replace("const TEST_TEXT = 'hello';", 'const TEST_TEXT = ' . \var_export($text, true) . ';', $source));
    }

    private function get(string $path): ?string
    {
        $client = new RawClient((string) $this->master?->address);
        $client->send("GET $path HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        $body = $client->readResponse()['body'] ?? null;
        $client->close();

        return $body;
    }
}
