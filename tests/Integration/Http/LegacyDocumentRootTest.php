<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Http\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * `serve --legacy --legacy-docroot=DIR` runs the file each path names, as nginx's try_files
 * configuration for WordPress and Adminer does in front of PHP-FPM — compared here with it,
 * response by response — and never runs anything but a .php file inside DIR.
 */
final class LegacyDocumentRootTest extends TestCase
{
    /** Where the scripts run (--legacy-runner). */
    protected const RUNNER = 'pool';

    private const FIXTURE = __DIR__ . '/../../Support/Legacy/docroot';
    /** Paths both servers answer alike: status, Location, body. */
    private const SAME_AS_FPM = [
        ['GET', '/', []],
        ['GET', '/index.php?a=1', []],
        ['GET', '/login.php', []],
        ['POST', '/login.php', ['--data', 'name=Ann']],
        ['GET', '/admin/', []],
        ['GET', '/admin/?x=1', []],
        ['GET', '/admin', []],
        ['GET', '/admin?x=1', []],
        ['GET', '/admin/edit.php', []],
        ['GET', '/admin/../login.php', ['--path-as-is']],
        ['GET', '/2026/11/hello-world/?p=3', []],
        ['GET', '/index.php/path/info', []],
        ['GET', '/missing.php', []],
        ['GET', '/admin/missing.php', []],
        ['GET', '/empty/', []],
        ['GET', '/../outside/secret.php', ['--path-as-is']],
    ];

    private static string $base = '';
    private static string $root = '';
    private static ?ServerProcess $bobbin = null;
    private static ?FpmServer $fpm = null;

    public static function setUpBeforeClass(): void
    {
        self::$base = \sys_get_temp_dir() . '/bobbin-docroot-' . \bin2hex(\random_bytes(4));
        self::$root = self::$base . '/site';
        \mkdir(self::$base . '/outside', 0o777, true);
        \exec('cp -a ' . \escapeshellarg(self::FIXTURE) . ' ' . \escapeshellarg(self::$root));
        \mkdir(self::$root . '/empty');
        \file_put_contents(self::$base . '/outside/secret.php', "<?php echo 'EXECUTED a file outside the root';\n");
        \symlink(self::$base . '/outside/secret.php', self::$root . '/linked-out.php');
        \symlink(self::$base . '/outside', self::$root . '/linked-dir');
        self::$bobbin = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1', '--legacy-children=2', '--legacy-docroot=' . self::$root], '');
        self::$fpm = FpmServer::start('', ['--docroot=' . self::$root]);
    }

    public static function tearDownAfterClass(): void
    {
        self::$bobbin?->stop();
        self::$fpm?->stop();
        self::$bobbin = self::$fpm = null;
        \exec('rm -rf ' . \escapeshellarg(self::$base));
    }

    /**
     * @param list<string> $arguments
     * @return array{status: int, location: string, body: string}
     */
    private static function fetch(int $port, string $method, string $path, array $arguments = []): array
    {
        $command = ['curl', '-sS', '--max-time', '10', '-i', '-X', $method, ...$arguments, 'http://127.0.0.1:' . $port . $path];
        $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $raw = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        self::assertSame(0, \proc_close($process), $errors);
        [$head, $body] = \explode("\r\n\r\n", $raw, 2) + [1 => ''];
        \preg_match('~^HTTP/1\.1 (\d{3})~', $head, $status);
        \preg_match('~^Location: *(\S+)~mi', $head, $location);

        return [
            'status' => (int) ($status[1] ?? 0),
            'location' => \str_replace(':' . $port . '/', ':PORT/', $location[1] ?? ''),
            'body' => \str_contains($head, 'application/json') ? $body : '(not the script\'s)',
        ];
    }

    public function testEveryPathRunsTheFileNginxAndPhpFpmRunWithTheSameScriptKeys(): void
    {
        self::assertNotNull(self::$bobbin);
        self::assertNotNull(self::$fpm);
        foreach (self::SAME_AS_FPM as [$method, $path, $arguments]) {
            $fpm = self::fetch(self::$fpm->port, $method, $path, $arguments);
            $bobbin = self::fetch(self::$bobbin->port, $method, $path, $arguments);

            self::assertSame($fpm, $bobbin, "$method $path");
        }
    }

    public function testTheScriptRunsWithItsOwnNameAndDirectory(): void
    {
        self::assertNotNull(self::$bobbin);
        $response = self::fetch(self::$bobbin->port, 'GET', '/admin/edit.php?id=7');
        $report = \json_decode($response['body'], true, flags: \JSON_THROW_ON_ERROR);
        $root = (string) \realpath(self::$root);

        self::assertSame('edit', $report['who']);
        self::assertSame($root . '/admin', $report['cwd']);
        self::assertSame(['/admin/edit.php', '/lib/common.php'], $report['included']);
        self::assertSame($root . '/admin/edit.php', $report['server']['SCRIPT_FILENAME']);
        self::assertSame('/admin/edit.php', $report['server']['SCRIPT_NAME']);
        self::assertSame('/admin/edit.php', $report['server']['PHP_SELF']);
        self::assertSame($root, $report['server']['DOCUMENT_ROOT']);
        self::assertSame('/admin/edit.php?id=7', $report['server']['REQUEST_URI']);
    }

    public function testFilesOfOneApplicationAreIncludedAgainOnEveryRequestWithoutRedeclaring(): void
    {
        self::assertNotNull(self::$bobbin);
        for ($i = 0; $i < 6; $i++) {
            $path = ['/', '/admin/', '/admin/edit.php'][$i % 3];
            self::assertSame(200, self::fetch(self::$bobbin->port, 'GET', $path)['status'], $path);
        }
    }

    public function testStaticFilesAreServedAsFilesAndNeverRunAsPhp(): void
    {
        self::assertNotNull(self::$bobbin);
        foreach (['/style.css' => 'text/css', '/notes.txt' => 'text/plain'] as $path => $type) {
            [$raw] = self::curl(self::$bobbin->url($path));

            self::assertStringStartsWith('HTTP/1.1 200', $raw, $path);
            self::assertStringContainsString("\r\nContent-Type: " . $type . '; charset=utf-8', $raw, $path);
            // notes.txt holds PHP code: its source comes back, it is not run.
            self::assertStringEndsWith("\r\n\r\n" . \file_get_contents(self::$root . $path), $raw, $path);
        }
    }

    public function testSymlinksOutOfTheRootAreNotFollowed(): void
    {
        self::assertNotNull(self::$bobbin);
        foreach (['/linked-out.php', '/linked-dir/secret.php', '/linked-dir/'] as $path) {
            [$raw] = self::curl(self::$bobbin->url($path));

            self::assertStringStartsWith('HTTP/1.1 404', $raw, $path);
            self::assertStringNotContainsString('EXECUTED', $raw, $path);
        }
    }

    public function testTheDocumentRootGoesWithLegacyAndTakesNoAppFileAndNoSharedState(): void
    {
        [$code, , $errors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-docroot=' . self::$root, self::$root . '/index.php']);
        self::assertSame(2, $code, $errors);
        self::assertStringContainsString('give no APP_FILE', $errors);

        [$code, , $errors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-shared-state', '--legacy-docroot=' . self::$root]);
        self::assertSame(2, $code, $errors);
        self::assertStringContainsString('--legacy-shared-state', $errors);

        [$code, , $errors] = ServerProcess::runToCompletion(['serve', '--legacy-docroot=' . self::$root]);
        self::assertSame(2, $code, $errors);
        self::assertStringContainsString('--legacy-docroot goes with --legacy', $errors);

        [$code, , $errors] = ServerProcess::runToCompletion(['serve', '--legacy', '--legacy-docroot=' . self::$root . '/nowhere']);
        self::assertSame(2, $code, $errors);
        self::assertStringContainsString('is not a directory', $errors);
    }

    /** @return array{string, string} */
    private static function curl(string $url): array
    {
        $process = \proc_open(['curl', '-sS', '--max-time', '10', '-i', '--path-as-is', $url], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        \proc_close($process);

        return [$output, $errors];
    }
}
