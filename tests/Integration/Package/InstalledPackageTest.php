<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Package;

use Bobbin\Tests\Support\EmbeddedPostgres;
use Bobbin\Tests\Support\HttpClient;
use Bobbin\Tests\Support\ServerProcess;
use PHPUnit\Framework\TestCase;

/**
 * Bobbin as a new user gets it: a project of its own in a temporary folder requires bobbin/bobbin
 * from a `git archive` of this checkout's HEAD (what a dist archive holds, export-ignore applied)
 * through a path repository that copies it, as Packagist's would, runs `composer install`, and
 * serves a PSR-15 application with a PostgreSQL query through `vendor/bin/bobbin serve`.
 */
final class InstalledPackageTest extends TestCase
{
    private string $directory = '';
    /** @var resource|null */
    private $server = null;

    protected function setUp(): void
    {
        $root = \dirname(__DIR__, 3);
        if (!\is_dir($root . '/.git') && !\is_file($root . '/.git')) {
            self::markTestSkipped('needs a git checkout: the package is built from `git archive HEAD`');
        }
        if (\trim((string) \shell_exec('command -v composer')) === '') {
            self::markTestSkipped('needs Composer on PATH');
        }
        $this->directory = \sys_get_temp_dir() . '/bobbin-package-' . \bin2hex(\random_bytes(4));
        \mkdir($this->directory . '/bobbin', 0700, true);
        \mkdir($this->directory . '/project/src', 0700, true);
    }

    protected function tearDown(): void
    {
        if ($this->server !== null) {
            $pid = (int) \proc_get_status($this->server)['pid'];
            \posix_kill($pid, \SIGTERM);
            $deadline = \microtime(true) + 10;
            while (\proc_get_status($this->server)['running'] && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
            if (\proc_get_status($this->server)['running']) {
                \posix_kill($pid, \SIGKILL);
            }
            \proc_close($this->server);
        }
        if ($this->directory !== '') {
            \exec('rm -rf ' . \escapeshellarg($this->directory));
        }
    }

    public function testANewProjectServesItsPsr15AppWithAPostgresQueryThroughVendorBinBobbin(): void
    {
        $root = \dirname(__DIR__, 3);
        self::shell(\sprintf(
            'git -C %s archive --format=tar HEAD | tar -x -C %s',
            \escapeshellarg($root),
            \escapeshellarg($this->directory . '/bobbin'),
        ), $root);
        foreach (['apps', 'bench', 'tests', 'docs/history', 'examples', 'scripts'] as $left) {
            self::assertFileDoesNotExist($this->directory . '/bobbin/' . $left, $left . ' is not in the dist archive');
        }
        $project = $this->directory . '/project';
        self::write($project . '/composer.json', self::COMPOSER_JSON);
        self::write($project . '/src/Doubler.php', self::HANDLER);
        self::write($project . '/app.php', self::APP);

        self::shell('composer install --no-interaction --no-progress 2>&1', $project);

        self::assertFileExists($project . '/vendor/bin/bobbin');
        self::assertFileDoesNotExist($project . '/vendor/bobbin/bobbin/vendor', 'the package brings no vendor/ of its own');
        self::assertFalse(\is_link($project . '/vendor/bobbin/bobbin'), 'a copy, as Packagist installs it');
        $autoloadFiles = $project . '/vendor/composer/autoload_files.php';
        self::assertStringNotContainsString('bobbin/bobbin', \is_file($autoloadFiles) ? (string) \file_get_contents($autoloadFiles) : '', 'nothing of Bobbin runs at autoload');
        self::assertStringNotContainsString('Apps\\\\Aircraft', (string) \file_get_contents($project . '/vendor/composer/autoload_psr4.php'));

        $port = ServerProcess::freePort();
        $log = $this->directory . '/server.log';
        $server = \proc_open(
            [$project . '/vendor/bin/bobbin', 'serve', 'app.php', '--listen=127.0.0.1:' . $port, '--workers=1', '--job-workers=0'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']],
            $pipes,
            $project,
            ['DATABASE_URL' => EmbeddedPostgres::connectionString(), 'PATH' => (string) \getenv('PATH')],
        );
        self::assertIsResource($server);
        $this->server = $server;
        $deadline = \microtime(true) + 20;
        while (!ServerProcess::answers($port, "GET /?n=1 HTTP/1.0\r\n\r\n", 'HTTP/1.')) {
            self::assertTrue(\proc_get_status($server)['running'], 'the server ended: ' . @\file_get_contents($log));
            self::assertLessThan($deadline, \microtime(true), 'the server did not answer: ' . @\file_get_contents($log));
            \usleep(50_000);
        }

        $response = (new HttpClient('127.0.0.1', $port))->request('GET', '/?n=21');

        self::assertSame(200, $response->status, $response->body . "\n" . @\file_get_contents($log));
        self::assertSame(['doubled' => 42, 'database' => 'bobbin'], \json_decode($response->body, true));
    }

    private static function shell(string $command, string $cwd): void
    {
        $output = [];
        \exec('cd ' . \escapeshellarg($cwd) . ' && ' . $command, $output, $status);
        self::assertSame(0, $status, $command . ":\n" . \implode("\n", $output));
    }

    private static function write(string $file, string $contents): void
    {
        \file_put_contents($file, $contents);
    }

    private const COMPOSER_JSON = <<<'JSON'
        {
            "name": "example/doubler",
            "type": "project",
            "require": {
                "php": ">=8.2",
                "bobbin/bobbin": "*@dev"
            },
            "repositories": [
                {"type": "path", "url": "../bobbin", "options": {"symlink": false}}
            ],
            "autoload": {
                "psr-4": {"App\\": "src/"}
            }
        }
        JSON;

    private const HANDLER = <<<'PHP'
        <?php

        declare(strict_types=1);

        namespace App;

        use Bobbin\Postgres\ConnectionPool;
        use Nyholm\Psr7\Response;
        use Psr\Http\Message\ResponseInterface;
        use Psr\Http\Message\ServerRequestInterface;
        use Psr\Http\Server\RequestHandlerInterface;

        final class Doubler implements RequestHandlerInterface
        {
            public function __construct(private readonly ConnectionPool $database)
            {
            }

            public function handle(ServerRequestInterface $request): ResponseInterface
            {
                $n = (int) ($request->getQueryParams()['n'] ?? 0);
                $row = $this->database->queryOne('SELECT $1::int * 2 AS doubled, current_database() AS database', [$n]);

                return new Response(200, ['Content-Type' => 'application/json'], \json_encode($row, \JSON_THROW_ON_ERROR));
            }
        }
        PHP;

    private const APP = <<<'PHP'
        <?php

        declare(strict_types=1);

        use Bobbin\Postgres\ConnectionPool;
        use Bobbin\Postgres\PoolConfig;

        return new App\Doubler(new ConnectionPool(PoolConfig::fromConnectionString((string) \getenv('DATABASE_URL'), maxSize: 4)));
        PHP;
}
