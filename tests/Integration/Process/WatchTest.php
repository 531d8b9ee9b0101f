<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Process;

use Bobbin\Tests\Support\Http\HttpGet;
use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Process\MasterProcess;
use PHPUnit\Framework\TestCase;

/**
 * --watch (development): a PHP file changed under APP_FILE's folder reloads the workers; a burst
 * of saves is one reload; new code that does not load leaves the old workers serving (issue 38).
 */
final class WatchTest extends TestCase
{
    private ?MasterProcess $server = null;
    private string $directory = '';
    private string $appFile = '';

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-watch-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir($this->directory . '/src', 0700, true);
        $this->appFile = $this->directory . '/app.php';
        $this->writeApp('hello');
    }

    protected function tearDown(): void
    {
        $this->server?->kill();
        \exec('rm -rf ' . \escapeshellarg($this->directory));
    }

    public function testAChangedFileReloadsTheWorkersWithTheNewCode(): void
    {
        $this->server = $server = MasterProcess::start($this->appFile, ['--workers=2', '--watch']);
        self::assertSame('hello', $this->body('/'));

        $this->writeApp('changed');

        $this->waitForBody('/', 'changed');
        self::assertMatchesRegularExpression('~Code changed \(' . \preg_quote($this->appFile, '~') . '\); reloading~', $server->log());
    }

    public function testAFileInASubfolderCountsAndABurstOfSavesIsOneReload(): void
    {
        $this->server = $server = MasterProcess::start($this->appFile, ['--workers=1', '--watch']);
        self::assertSame('hello', $this->body('/'));

        for ($i = 0; $i < 5; $i++) {
            \file_put_contents($this->directory . '/src/Helper.php', "<?php\n// save $i\n");
            \usleep(100_000);
        }

        $server->waitForLog('/Reload complete/');
        \usleep(1_500_000);
        self::assertSame(1, \substr_count($server->log(), 'Reloading: starting'), $server->log());
    }

    public function testNewCodeThatDoesNotLoadLeavesTheOldWorkersServing(): void
    {
        $this->server = $server = MasterProcess::start($this->appFile, ['--workers=1', '--watch']);
        $workers = $server->workerPids();

        \file_put_contents($this->appFile, "<?php\nreturn static function ( {\n");

        $server->waitForLog('/Reload failed, the running workers stay/');
        self::assertSame('hello', $this->body('/'));
        self::assertSame($workers, $server->workerPids());
        $this->writeApp('fixed');
        $this->waitForBody('/', 'fixed');
    }

    public function testFilesOutsideThePhpSourcesAndUnderVendorDoNotReload(): void
    {
        $this->server = $server = MasterProcess::start($this->appFile, ['--workers=1', '--watch']);
        \mkdir($this->directory . '/vendor/acme', 0700, true);

        \file_put_contents($this->directory . '/notes.txt', 'not code');
        \file_put_contents($this->directory . '/vendor/acme/Lib.php', "<?php\n");
        \usleep(2_000_000);

        self::assertStringNotContainsString('Reloading', $server->log());
    }

    public function testWatchNeedsTheMaster(): void
    {
        [$code, , $err] = BobbinChild::runToCompletion(['serve', $this->appFile, '--listen=127.0.0.1:0', '--single-process', '--watch']);

        self::assertSame(2, $code);
        self::assertStringContainsString('--watch', $err);
    }

    private function writeApp(string $text): void
    {
        $source = (string) \file_get_contents(\dirname(__DIR__, 2) . '/Support/Process/app.php');
        // A new size too: the change must show even within the second of the last one.
        \file_put_contents($this->appFile, \str_replace("const TEST_TEXT = 'hello';", "const TEST_TEXT = '$text';", $source));
    }

    private function body(string $path): string
    {
        \assert($this->server !== null);

        return HttpGet::fetch($this->server->address, $path)['body'];
    }

    private function waitForBody(string $path, string $expected): void
    {
        $deadline = \microtime(true) + 10.0;
        while (($body = $this->body($path)) !== $expected) {
            if (\microtime(true) > $deadline) {
                self::fail("Still '$body' instead of '$expected' after 10 s:\n" . $this->server?->log());
            }
            \usleep(100_000);
        }
        self::assertSame($expected, $body);
    }
}
