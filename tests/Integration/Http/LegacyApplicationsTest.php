<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Http;

use Bobbin\Tests\Support\FpmServer;
use Bobbin\Tests\Support\Http\ServerProcess;
use Bobbin\Tests\Support\Legacy\Apps\AdminerScenario;
use Bobbin\Tests\Support\Legacy\Apps\MysqlAccount;
use Bobbin\Tests\Support\Legacy\Apps\WordPressScenario;
use Bobbin\Tests\Support\Legacy\Apps\WordPressSite;
use PHPUnit\Framework\TestCase;

/**
 * Issue 37's acceptance: real classic applications, Debian's WordPress and Adminer
 * (scripts/install-deps), run end to end on `serve --legacy --legacy-docroot` — two clients
 * with their own cookie jars, requests at the same time, an anonymous one that never sees a
 * logged-in page — and the same scenario against nginx + PHP-FPM gives the same status codes,
 * redirects and cookie names, response by response.
 */
final class LegacyApplicationsTest extends TestCase
{
    /** Where the scripts run (--legacy-runner). */
    protected const RUNNER = 'pool';

    private const ADMINER = '/usr/share/adminer';

    private string $directory = '';
    private ?MysqlAccount $mysql = null;
    /** @var list<ServerProcess|FpmServer> */
    private array $servers = [];

    protected function setUp(): void
    {
        $url = (string) \getenv('BOBBIN_TEST_MYSQL_URL');
        if ($url === '') {
            self::markTestSkipped('BOBBIN_TEST_MYSQL_URL is not set (source the test environment)');
        }
        $this->mysql = MysqlAccount::fromUrl($url);
        $this->directory = \sys_get_temp_dir() . '/bobbin-legacy-apps-' . \bin2hex(\random_bytes(4));
        \mkdir($this->directory);
    }

    protected function tearDown(): void
    {
        foreach ($this->servers as $server) {
            $server->stop();
        }
        $this->mysql?->dropDatabases();
        if ($this->directory !== '') {
            \exec('rm -rf ' . \escapeshellarg($this->directory));
        }
    }

    /**
     * Both servers get this test's own temporary directory (TMPDIR): Adminer counts failed
     * logins per client address in sys_get_temp_dir()/adminer.invalid and locks the address
     * out for 30 minutes after 30 — every run's anonymous requests would add to /tmp's.
     *
     * @return array{string, string} the base URLs of Bobbin and of nginx + PHP-FPM serving $root
     */
    private function serve(string $bobbinRoot, string $fpmRoot): array
    {
        $temporary = $this->directory . '/tmp';
        @\mkdir($temporary);
        $bobbin = ServerProcess::start(['--legacy', '--legacy-runner=' . static::RUNNER, '--workers=1', '--legacy-children=4', '--legacy-docroot=' . $bobbinRoot], '', ['TMPDIR' => $temporary]);
        $this->servers[] = $bobbin;
        $previous = \getenv('TMPDIR');
        \putenv('TMPDIR=' . $temporary); // PHP-FPM keeps its environment (clear_env = no)
        try {
            $fpm = FpmServer::start('', ['--docroot=' . $fpmRoot]);
        } finally {
            \putenv($previous === false ? 'TMPDIR' : 'TMPDIR=' . $previous);
        }
        $this->servers[] = $fpm;

        return [\rtrim($bobbin->url(''), '/'), 'http://127.0.0.1:' . $fpm->port];
    }

    public function testWordPressInstallsLogsInPublishesAndTakesAVisitorsCommentAsUnderPhpFpm(): void
    {
        if (!WordPressSite::isInstalled()) {
            self::markTestSkipped('Debian\'s wordpress and wordpress-theme-twentytwentythree are not installed (scripts/install-deps)');
        }
        \assert($this->mysql !== null);
        // One site each: WordPress keeps its address (with the port) in its database.
        $bobbinSite = WordPressSite::create($this->directory . '/bobbin', $this->mysql, $this->mysql->createDatabase('bobbin_wp'));
        $fpmSite = WordPressSite::create($this->directory . '/fpm', $this->mysql, $this->mysql->createDatabase('bobbin_wp'));
        [$bobbin, $fpm] = $this->serve($bobbinSite->root, $fpmSite->root);

        $onBobbin = (new WordPressScenario($bobbin))->run();
        $onFpm = (new WordPressScenario($fpm))->run();

        self::assertSame($onFpm, $onBobbin);
    }

    public function testAdminerLogsInToMariaDbRunsAQueryAndBrowsesATableAsUnderPhpFpm(): void
    {
        if (!\is_file(self::ADMINER . '/adminer.php')) {
            self::markTestSkipped('Debian\'s adminer is not installed (scripts/install-deps)');
        }
        \assert($this->mysql !== null);
        $database = $this->mysql->createDatabase('bobbin_adminer', ...AdminerScenario::SETUP);
        [$bobbin, $fpm] = $this->serve(self::ADMINER, self::ADMINER);

        $onBobbin = (new AdminerScenario($bobbin, $this->mysql, $database))->run();
        $onFpm = (new AdminerScenario($fpm, $this->mysql, $database))->run();

        self::assertSame($onFpm, $onBobbin);
    }
}
