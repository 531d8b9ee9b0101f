<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Deploy;

use Bobbin\Tests\Support\Process\BobbinChild;
use Bobbin\Tests\Support\Tls\TestCertificates;
use PHPUnit\Framework\TestCase;

/**
 * docs/DEPLOY.md's files are checked by the programs that read them: the systemd unit by
 * `systemd-analyze verify`, the nginx site by `nginx -t`, the logrotate stanza by `logrotate -d`,
 * the Dockerfile's packages by `apt-cache`, and every `serve` option they use by `serve --help`.
 * Each is skipped, with the reason, where its program is missing.
 */
final class DeployFilesTest extends TestCase
{
    private const DOC = __DIR__ . '/../../../docs/DEPLOY.md';

    private string $directory = '';

    protected function setUp(): void
    {
        $this->directory = \sys_get_temp_dir() . '/bobbin-deploy-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir($this->directory . '/app/vendor/bin', 0700, true);
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->directory));
    }

    public function testTheSystemdUnitPassesSystemdAnalyzeVerify(): void
    {
        $analyze = self::program('systemd-analyze');
        // The unit runs /srv/app: a stand-in with vendor/bin/bobbin and app.php, so the paths it names exist.
        $app = $this->directory . '/app';
        \symlink(\dirname(__DIR__, 3) . '/bin/bobbin', $app . '/vendor/bin/bobbin');
        \copy(\dirname(__DIR__, 2) . '/Support/Process/app.php', $app . '/app.php');
        $unit = $this->directory . '/bobbin.service';
        \file_put_contents($unit, \str_replace('/srv/app', $app, self::block('/etc/systemd/system/bobbin.service')));

        \exec(\escapeshellarg($analyze) . ' verify --man=no ' . \escapeshellarg($unit) . ' 2>&1', $output, $code);

        $complaints = \array_filter($output, static fn (string $line): bool => !\str_contains($line, 'postgresql.service'));
        self::assertSame(0, $code, \implode("\n", $output));
        self::assertSame([], \array_values($complaints));
    }

    public function testTheNginxSiteIsAcceptedByNginx(): void
    {
        $nginx = self::program('nginx', ['/usr/sbin/nginx']);
        $site = \str_replace(
            ['/etc/letsencrypt/live/app.example.com/fullchain.pem', '/etc/letsencrypt/live/app.example.com/privkey.pem'],
            [TestCertificates::certificate(TestCertificates::LOCALHOST), TestCertificates::key(TestCertificates::LOCALHOST)],
            self::block('/etc/nginx/sites-available/app.conf'),
        );
        \file_put_contents($this->directory . '/app.conf', $site);
        \file_put_contents($this->directory . '/nginx.conf', \sprintf(
            "pid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\nhttp {\n    access_log off;\n    include %s/app.conf;\n}\n",
            $this->directory,
            $this->directory,
            $this->directory,
        ));

        \exec(\sprintf('%s -t -q -p %s -e %s -c %s 2>&1', \escapeshellarg($nginx), \escapeshellarg($this->directory), \escapeshellarg($this->directory . '/error.log'), \escapeshellarg($this->directory . '/nginx.conf')), $output, $code);

        self::assertSame(0, $code, \implode("\n", $output));
    }

    public function testTheLogrotateStanzaPassesLogrotatesDebugRun(): void
    {
        $logrotate = self::program('logrotate', ['/usr/sbin/logrotate']);
        \file_put_contents($this->directory . '/bobbin', \str_replace('/var/log/bobbin', $this->directory . '/log', self::block('/etc/logrotate.d/bobbin')));
        \mkdir($this->directory . '/log');
        \file_put_contents($this->directory . '/log/access.log', "a line\n");

        \exec(\sprintf('%s -d -s %s %s 2>&1', \escapeshellarg($logrotate), \escapeshellarg($this->directory . '/state'), \escapeshellarg($this->directory . '/bobbin')), $output, $code);

        self::assertSame(0, $code, \implode("\n", $output));
        self::assertStringNotContainsString('error', \strtolower(\implode("\n", $output)));
    }

    public function testTheDockerfileInstallsPackagesDebianHas(): void
    {
        $aptCache = self::program('apt-cache');
        $dockerfile = self::block('/srv/app/Dockerfile');
        self::assertMatchesRegularExpression('/^FROM debian:bookworm/m', $dockerfile, 'The packages are checked against this host\'s Debian: keep the two on the same release');
        self::assertSame(1, \preg_match('/apt-get install -y --no-install-recommends\s*\\\\\n(.*?)&&/s', $dockerfile, $m));
        $packages = \preg_split('/[\s\\\\]+/', \trim($m[1]), -1, \PREG_SPLIT_NO_EMPTY);
        self::assertNotEmpty($packages);
        \exec(\escapeshellarg($aptCache) . ' show php8.2-cli 2>/dev/null', $probe, $code);
        if ($code !== 0) {
            self::markTestSkipped('apt-cache knows no package lists on this host (apt-get update)');
        }

        foreach ((array) $packages as $package) {
            \exec(\escapeshellarg($aptCache) . ' show ' . \escapeshellarg((string) $package) . ' 2>&1', $output, $code);
            self::assertSame(0, $code, "Debian has no package $package");
        }
    }

    public function testEveryServeOptionOnThePageIsOneServeKnows(): void
    {
        [$code, $help] = BobbinChild::runToCompletion(['serve', '--help']);
        self::assertSame(0, $code);
        $unit = self::block('/etc/systemd/system/bobbin.service');
        self::assertSame(1, \preg_match('/^ExecStart=(.*?)(?<!\\\\)\n/ms', $unit, $exec));
        self::assertSame(1, \preg_match('/^CMD (\[.*\])$/m', self::block('/srv/app/Dockerfile'), $cmd));
        $docker = \implode(' ', (array) \json_decode($cmd[1], true));

        \preg_match_all('/(?<=\s)--([a-z][a-z-]*)/', $exec[1] . ' ' . $docker, $options);

        self::assertGreaterThan(5, \count($options[1]));
        foreach (\array_unique($options[1]) as $option) {
            self::assertMatchesRegularExpression('/^\s+--' . \preg_quote($option, '/') . '\b/m', $help, "serve has no --$option");
        }
    }

    /** The code block of docs/DEPLOY.md whose first line names $path. */
    private static function block(string $path): string
    {
        \preg_match_all('/^```[a-z]*\n(.*?)^```$/ms', (string) \file_get_contents(self::DOC), $blocks);
        foreach ($blocks[1] as $block) {
            if (\str_starts_with($block, '# ' . $path . "\n")) {
                return $block;
            }
        }
        self::fail("docs/DEPLOY.md has no code block starting with # $path");
    }

    /** @param list<string> $candidates */
    private static function program(string $name, array $candidates = []): string
    {
        $found = \trim((string) \shell_exec('command -v ' . \escapeshellarg($name) . ' 2>/dev/null'));
        foreach ($candidates as $candidate) {
            if ($found === '' && \is_executable($candidate)) {
                $found = $candidate;
            }
        }
        if ($found === '') {
            self::markTestSkipped("$name is not installed here: the check it makes of docs/DEPLOY.md did not run");
        }

        return $found;
    }
}
