<?php

declare(strict_types=1);

/*
 * bench/legacy/wordpress.php — what a process per request costs a real classic application
 * (issue 37, item 4): Debian's WordPress, its front page (anonymous) and an admin page (the
 * post list, /wp-admin/edit.php, with an administrator's cookies), served by
 *
 *   bobbin-legacy   bin/bobbin serve --legacy --legacy-runner=pool --legacy-docroot=ROOT --workers=1
 *                   --legacy-children=N: the legacy pool's N processes, PHP's own request
 *                   start-up and shut-down around each request (native/legacy-pool)
 *   bobbin-legacy-fork  the same with --legacy-runner=fork: a fresh process forked from the
 *                   worker per request
 *   fpm             nginx + PHP-FPM, pm = static, pm.max_children = N (apps/aircraft/fpm/ctl
 *                   --docroot, the nginx configuration WordPress documents)
 *
 * both on cpu 0 with opcache (PHP-FPM's php.ini: opcache on, JIT off, validate_timestamps 0;
 * Bobbin as shipped: `--legacy` turns opcache on and leaves the JIT off), wrk and MariaDB on cpu 1 (the test MariaDB
 * is pinned there for the run and unpinned at the end, as bench/mysql/run.php does). The two
 * servers run side by side; the rounds take turns (page after page, server after server) and
 * the medians of the per-round ratios are shown: requests/s, server CPU per request (every
 * server process, the children that ended and were reaped included) and the PSS of every
 * server process with wrk's 10 connections open (peak over the run).
 * `--legacy-shared-state` cannot serve WordPress (it refuses --legacy-docroot: WordPress's
 * files declare their functions without require_once guards); bench/run's `legacy` experiment
 * compares the three modes on a one-file page.
 *
 * WordPress is installed and configured by the acceptance test's own code
 * (tests/Support/Legacy/Apps: WordPressSite, WordPressScenario), in a database of its own.
 *
 *   source /tmp/bobbin-test-env.sh  # BOBBIN_TEST_MYSQL_URL, BOBBIN_MYSQL_HOME
 *   flock /tmp/bobbin-bench.lock php bench/legacy/wordpress.php [--seconds=8] [--rounds=5]
 *       [--children=4] [--connections=10] [--variants=bobbin-legacy,fpm] [--write-doc] [--hold]
 *
 * --variants also knows bobbin-legacy-nojit (the pool without its tracing JIT, `php -d
 * opcache.jit=off`), bobbin-legacy-jit (the fork runner with the tracing JIT on, as --legacy ran before it
 * turned it off for its process per request) and bobbin-legacy-huge (the fork runner, PHP's allocator on
 * transparent huge pages, USE_ZEND_ALLOC_HUGE_PAGES=1) and bobbin-legacy-baseline (bin/bobbin of the
 * checkout --baseline=DIR names, e.g. `git archive main | tar -x -C DIR` with vendor/ copied, not linked: a
 * change and what it changed, in the same run). --hold sets
 * everything up, prints the servers' addresses and the administrator's cookies and waits for
 * stdin to close, measuring nothing: for profiling by hand.
 * --write-doc replaces the "## Cost beside PHP-FPM, measured" section of docs/LEGACY.md (and
 * docs/BENCHMARKS.md's copy of it).
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\Meter;
use Bobbin\Bench\Load\WrkResult;
use Bobbin\Bench\Report\DocSection;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;
use Bobbin\Tests\Support\Legacy\Apps\MysqlAccount;
use Bobbin\Tests\Support\Legacy\Apps\WordPressScenario;
use Bobbin\Tests\Support\Legacy\Apps\WordPressSite;

$root = \dirname(__DIR__, 2);
require $root . '/vendor/autoload.php';
require $root . '/bench/lib/autoload.php';
\ignore_user_abort(true);

const SERVER_CPU = '0';
const LOAD_CPU = '1';
const PAGES = ['front' => '/', 'admin' => '/wp-admin/edit.php'];

$options = \getopt('', ['seconds:', 'rounds:', 'children:', 'connections:', 'variants:', 'baseline:', 'write-doc', 'hold', 'help']);
if (isset($options['help'])) {
    $self = (string) \file_get_contents(__FILE__);
    echo \substr($self, \strpos($self, '/*') + 3, \strpos($self, '*/') - \strpos($self, '/*') - 3), "\n";
    exit(0);
}
$seconds = (float) ($options['seconds'] ?? 8);
$rounds = (int) ($options['rounds'] ?? 5);
$children = (int) ($options['children'] ?? 4);
$connections = (int) ($options['connections'] ?? 10);
$variantNames = \explode(',', (string) ($options['variants'] ?? 'bobbin-legacy,fpm'));
$baseline = \is_string($options['baseline'] ?? null) ? $options['baseline'] : null;
$mysqlUrl = (string) \getenv('BOBBIN_TEST_MYSQL_URL');
if ($mysqlUrl === '' || !WordPressSite::isInstalled()) {
    \fwrite(\STDERR, "Needs WordPress (scripts/install-deps) and BOBBIN_TEST_MYSQL_URL (source /tmp/bobbin-test-env.sh)\n");
    exit(2);
}

$mysql = MysqlAccount::fromUrl($mysqlUrl);
$directory = \sys_get_temp_dir() . '/bobbin-bench-wordpress-' . \bin2hex(\random_bytes(4));
\mkdir($directory . '/tmp', 0o777, true);
$servers = [];
$mysqlPid = (int) \trim((string) @\file_get_contents((\getenv('BOBBIN_MYSQL_HOME') ?: "$root/var/mysql") . '/mariadb.pid'));
$pinMysql = static function (string $cpus) use ($mysqlPid): void {
    if ($mysqlPid > 0) {
        \shell_exec(\sprintf('taskset -a -p -c %s %d >/dev/null 2>&1', $cpus, $mysqlPid));
    }
};
\register_shutdown_function(static function () use (&$servers, $mysql, $directory, $pinMysql): void {
    foreach ($servers as $server) {
        $server->stop();
    }
    $pinMysql('0-' . (\max(2, (int) \shell_exec('nproc')) - 1));
    $mysql->dropDatabases();
    \exec('rm -rf ' . \escapeshellarg($directory));
});

$site = WordPressSite::create($directory, $mysql, $mysql->createDatabase('bench_wp'), followHost: true);
$env = ['TMPDIR' => $directory . '/tmp'];
$starts = [
    'bobbin-legacy' => static fn (): Server => BobbinServer::start($root, 'bobbin-legacy', '', SERVER_CPU, 1, $env, '/wp-admin/install.php', serveOptions: [
        '--legacy', '--legacy-runner=pool', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children,
    ]),
    // The pool without the tracing JIT (a user's -d setting reaches the pool's PHP)
    'bobbin-legacy-nojit' => static fn (): Server => BobbinServer::start($root, 'bobbin-legacy-nojit', '', SERVER_CPU, 1, $env, '/wp-admin/install.php', ['-d', 'opcache.jit=off'], [
        '--legacy', '--legacy-runner=pool', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children,
    ]),
    'bobbin-legacy-fork' => static fn (): Server => BobbinServer::start($root, 'bobbin-legacy-fork', '', SERVER_CPU, 1, $env, '/wp-admin/install.php', serveOptions: [
        '--legacy', '--legacy-runner=fork', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children,
    ]),
    // --legacy as it ran before it turned the JIT off (OpcacheRelaunch): what the JIT costs a fresh process
    'bobbin-legacy-jit' => static fn (): Server => BobbinServer::start($root, 'bobbin-legacy-jit', '', SERVER_CPU, 1, $env, '/wp-admin/install.php', [
        '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit_buffer_size=64M', '-d', 'opcache.jit=tracing',
    ], ['--legacy', '--legacy-runner=fork', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children]),
    // PHP's allocator on transparent huge pages (2 MB chunks): one fault per chunk instead of 512
    'bobbin-legacy-huge' => static fn (): Server => BobbinServer::start($root, 'bobbin-legacy-huge', '', SERVER_CPU, 1, $env + ['USE_ZEND_ALLOC_HUGE_PAGES' => '1'], '/wp-admin/install.php', serveOptions: [
        '--legacy', '--legacy-runner=fork', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children,
    ]),
    // Another checkout's bin/bobbin (--baseline=DIR, with its vendor/): a change measured beside what it changed, in one run
    'bobbin-legacy-baseline' => static fn (): Server => BobbinServer::start($baseline ?? throw new \InvalidArgumentException('bobbin-legacy-baseline needs --baseline=DIR'),
        'bobbin-legacy-baseline', '', SERVER_CPU, 1, $env, '/wp-admin/install.php', serveOptions: [
            '--legacy', '--legacy-docroot=' . $site->root, '--legacy-children=' . $children,
        ]),
    'fpm' => static fn (): Server => FpmServer::start($root, 'fpm', $children, false, SERVER_CPU, $env, null, 1, null, null, $site->root),
];
$commands = [];
foreach ($variantNames as $name) {
    $servers[$name] = ($starts[$name] ?? throw new \InvalidArgumentException("unknown variant $name"))();
    $commands[] = $servers[$name]->command();
}

// Installed once (through the first server), an administrator logged in on each: WordPress's
// cookie names hold a hash of the site's address, which follows the port here.
$cookies = [];
foreach ($servers as $name => $server) {
    $scenario = new WordPressScenario($server->baseUrl());
    if ($cookies === []) {
        $scenario->install();
    }
    $scenario->logIn();
    $cookies[$name] = $scenario->adminCookieHeader();
}

if (isset($options['hold'])) {
    // To profile by hand: the servers and the administrator's cookies, until stdin closes.
    foreach ($servers as $name => $server) {
        echo "$name {$server->baseUrl()} pids " . \implode(',', $server->rootPids()) . "\n";
        echo "$name cookie {$cookies[$name]}\n";
    }
    \stream_get_contents(\STDIN);
    exit(0);
}
Shell::run(['taskset', '-p', '-c', LOAD_CPU, (string) \getmypid()]);
$pinMysql(LOAD_CPU);
$meter = new Meter(ProcessTree::ticksPerSecond());

/** @return array{float, float, float, float, int} req/s, server CPU µs/request, p99 ms, peak PSS MiB, errors */
$measure = static function (Server $server, string $path, string $cookie) use ($meter, $seconds, $connections, $root): array {
    $headers = $cookie === '' ? [] : ['-H', 'Cookie: ' . $cookie];
    $url = $server->baseUrl() . $path;
    Shell::run(['taskset', '-c', LOAD_CPU, 'wrk', '-t1', '-c' . $connections, '-d2s', ...$headers, $url], null, 30.0); // warm-up
    $metered = $meter->run($server, ['taskset', '-c', LOAD_CPU, 'wrk', '-t1', '-c' . $connections, '-d' . (int) \ceil($seconds) . 's',
        '--timeout', '10s', '-s', $root . '/bench/wrk/plain.lua', ...$headers, $url], $seconds + 30.0);
    $result = WrkResult::parse($metered->load->stdout);
    $requests = \max(1.0, $result->get('requests'));

    return [
        $result->get('requests') / \max(0.001, $result->get('seconds')),
        $metered->serverCpuSeconds * 1e6 / $requests,
        $result->get('p99_ms'),
        $metered->peakPssKb / 1024,
        (int) ($result->get('socket_errors') + $result->get('non2xx')),
    ];
};

$results = [];
for ($round = 1; $round <= $rounds; $round++) {
    foreach (PAGES as $page => $path) {
        foreach ($servers as $name => $server) {
            $results[$page][$name][] = $run = $measure($server, $path, $page === 'admin' ? $cookies[$name] : '');
            \fwrite(\STDERR, \sprintf("round %d %s %s: %.1f req/s, %.0f µs CPU/request, p99 %.0f ms, PSS %.1f MiB, %d errors\n", $round, $page, $name, ...$run));
        }
    }
}

$median = static function (array $values): float {
    \sort($values);
    $n = \count($values);

    return $n === 0 ? \NAN : ($n % 2 === 1 ? (float) $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2);
};
$md = [];
$md[] = \sprintf('Run of %s UTC: `flock /tmp/bobbin-bench.lock php bench/legacy/wordpress.php --seconds=%s --rounds=%d --children=%d --connections=%d%s` '
    . '(2 vCPUs shared with other work): WordPress %s (Debian), the servers on cpu %s, wrk (`-t1 -c%d`) and MariaDB on cpu %s; '
    . '%d rounds, the servers taking turns page after page; each figure is the median of the rounds, each ratio the median of the per-round ratios.',
    \gmdate('Y-m-d H:i'), $seconds, $rounds, $children, $connections,
    isset($options['variants']) ? ' --variants=' . \implode(',', $variantNames) . ($baseline !== null ? ' --baseline=DIR' : '') : '', wordPressVersion(), SERVER_CPU, $connections, LOAD_CPU, $rounds);
$md[] = '';
$md[] = '| page | server | req/s | req/s vs fpm | server CPU µs/request | CPU vs fpm | p99 ms | PSS MiB, 10 clients | errors |';
$md[] = '|---|---|---:|---:|---:|---:|---:|---:|---:|';
foreach ($results as $page => $variants) {
    foreach ($variants as $name => $runs) {
        $ratio = static function (int $field) use ($variants, $runs, $median): string {
            if (!isset($variants['fpm'])) {
                return '';
            }
            $ratios = [];
            foreach ($runs as $i => $run) {
                $ratios[] = $run[$field] / \max(1e-9, $variants['fpm'][$i][$field]);
            }

            return \sprintf('%.2fx', $median($ratios));
        };
        $md[] = \sprintf('| %s `%s` | %s | %.1f | %s | %.0f | %s | %.0f | %.1f | %d |', $page, PAGES[$page], $name,
            $median(\array_column($runs, 0)), $ratio(0), $median(\array_column($runs, 1)), $ratio(1),
            $median(\array_column($runs, 2)), $median(\array_column($runs, 3)), \array_sum(\array_column($runs, 4)));
    }
}
$md[] = '';
$md[] = 'Servers (`ROOT`: a copy of /usr/share/wordpress made by the run, `TMPDIR` its own):';
$md[] = '';
foreach ($commands as $command) {
    $md[] = '    ' . \str_replace([$root . '/', $site->root], ['', 'ROOT'], $command);
}
$text = \implode("\n", $md) . "\n";
echo $text;
if (isset($options['write-doc'])) {
    DocSection::write("$root/docs/LEGACY.md", '## Cost beside PHP-FPM, measured', $text);
    DocSection::spliceBenchmarks($root);
}

function wordPressVersion(): string
{
    $source = (string) @\file_get_contents(WordPressSite::DEBIAN . '/wp-includes/version.php');

    return \preg_match('~\$wp_version = \'([^\']+)\'~', $source, $m) === 1 ? $m[1] : '?';
}
