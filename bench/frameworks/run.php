<?php

declare(strict_types=1);

/*
 * bench/frameworks/run.php — the shared-nothing costs of framework apps, measured (issue 19).
 *
 * The same example app (examples/symfony GET /items/{id}, examples/laravel GET /api/items/{id}
 * — Laravel's stateless "api" group: a JSON endpoint reading one row through the framework's
 * database layer, Doctrine DBAL / Laravel's query builder, on Bobbin's pool under both servers)
 * served by:
 *
 *   fpm           nginx + PHP-FPM (pm.max_children=--children, opcache, one persistent PostgreSQL
 *                 connection per child: DATABASE_PERSISTENT=1, the strongest FPM baseline)
 *   fpm-preload   the same with opcache.preload = a script `bin/bobbin preload` generated
 *   bobbin-one    bin/bobbin serve, one worker, one request at a time in the framework
 *   bobbin-fiber  the same with the per-fiber context (BOBBIN_CONCURRENCY=concurrent; Laravel only)
 *
 * each pinned to cpu 0, wrk and PostgreSQL on cpu 1; the variants take turns round after round
 * (a fresh server each turn, a short warm-up) and the median of the rounds is shown: requests/s,
 * server CPU per request (every server process: nginx, the FPM master and children / the Bobbin
 * process), p99, and the memory of the server's processes at the end (each page once).
 * Also: hello world through a PSR-15 handler (examples/hello.php) under Bobbin, with the CPU its
 * PSR-7 objects cost (bench/http/messages.php), i.e. what a path without them could save.
 *
 *   flock /tmp/bobbin-bench.lock php bench/frameworks/run.php [--apps=symfony,laravel]
 *       [--seconds=8] [--rounds=3] [--children=8] [--connections=16] [--write-doc]
 *
 * --write-doc replaces the "## Benchmark, measured" section of docs/FRAMEWORKS.md.
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\Meter;
use Bobbin\Bench\Load\WrkResult;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

require \dirname(__DIR__) . '/lib/autoload.php';
\ignore_user_abort(true);

const SERVER_CPU = '0';
const LOAD_CPU = '1';
const APPS = [
    // APP_FILE for Bobbin, front controller for PHP-FPM, the endpoint (+ an id)
    'symfony' => ['examples/symfony/public/index.php', 'examples/symfony/public/index.php', '/items/'],
    'laravel' => ['examples/laravel/bobbin.php', 'examples/laravel/public/index.php', '/api/items/'],
];

$options = \getopt('', ['apps:', 'seconds:', 'rounds:', 'children:', 'connections:', 'write-doc', 'help']);
if (isset($options['help'])) {
    $self = (string) \file_get_contents(__FILE__);
    echo \substr($self, \strpos($self, '/*') + 3, \strpos($self, '*/') - \strpos($self, '/*') - 3), "\n";
    exit(0);
}
$root = \dirname(__DIR__, 2);
$apps = \explode(',', (string) ($options['apps'] ?? 'symfony,laravel'));
$seconds = (float) ($options['seconds'] ?? 8);
$rounds = (int) ($options['rounds'] ?? 3);
$children = (int) ($options['children'] ?? 8);
$connections = (int) ($options['connections'] ?? 16);

$database = new Database($root);
$database->start();
$database->pin(LOAD_CPU);
Shell::run(['taskset', '-p', '-c', LOAD_CPU, (string) \getmypid()]);
$meter = new Meter(ProcessTree::ticksPerSecond());
$url = static fn (string $name): string => $database->url($name);
$psql = static function (string $sql) use ($root): void {
    $result = Shell::run([$root . '/scripts/pg', 'psql', '-q', '-v', 'ON_ERROR_STOP=1', '-c', $sql]);
    if ($result->exitCode !== 0) {
        throw new \RuntimeException("psql failed: {$result->stderr}");
    }
};
$psql('DROP TABLE IF EXISTS fw_items; CREATE TABLE fw_items (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);'
    . " INSERT INTO fw_items (name) SELECT 'item ' || g FROM generate_series(1, 1000) g; ANALYZE fw_items;");

/** @return array{float, float, float, float, int} req/s, CPU µs/request, p99 ms, memory MiB, errors */
$measure = static function (Server $server, string $path) use ($meter, $seconds, $connections, $root): array {
    $wrk = ['taskset', '-c', LOAD_CPU, 'wrk', '-t1', '-c' . $connections, '-d' . (int) \ceil($seconds) . 's', '--timeout', '10s',
        '-s', $root . '/bench/wrk/plain.lua', $server->baseUrl() . $path];
    Shell::run(['taskset', '-c', LOAD_CPU, 'wrk', '-t1', '-c' . $connections, '-d2s', $server->baseUrl() . $path], null, 30.0); // warm-up
    $metered = $meter->run($server, $wrk, $seconds + 30.0);
    $result = WrkResult::parse($metered->load->stdout);
    $requests = \max(1.0, $result->get('requests'));

    return [
        $result->get('requests') / \max(0.001, $result->get('seconds')),
        $metered->serverCpuSeconds * 1e6 / $requests,
        $result->get('p99_ms'),
        ($metered->residentKb ?? 0) / 1024,
        (int) ($result->get('socket_errors') + $result->get('non2xx')),
    ];
};

$preloadDir = $root . '/var/bench/frameworks';
@\mkdir($preloadDir, 0777, true);
$results = [];
$commands = [];
foreach ($apps as $app) {
    [$bobbinFile, $fpmFile, $endpoint] = APPS[$app] ?? throw new \InvalidArgumentException("unknown app $app");
    // The preload script, from the requests the benchmark sends.
    $script = "$preloadDir/$app-preload.php";
    $generated = Shell::run([\PHP_BINARY, "$root/bin/bobbin", 'preload', "$root/$bobbinFile", '--request=' . $endpoint . '1', '--request=' . $endpoint . '2', "--output=$script"],
        ['DATABASE_URL' => $url('bobbin-bench-preload')] + \getenv(), 120.0);
    if ($generated->exitCode !== 0) {
        throw new \RuntimeException("bin/bobbin preload failed: {$generated->stderr}");
    }
    @\mkdir("$preloadDir/$app-ini", 0777, true);
    \file_put_contents("$preloadDir/$app-ini/99-preload.ini", "opcache.preload=$script\nopcache.preload_user=root\n");
    $commands[] = "bin/bobbin preload $bobbinFile --request={$endpoint}1 --request={$endpoint}2 --output=var/bench/frameworks/$app-preload.php";
    $variants = [
        'fpm' => static fn (): Server => FpmServer::start($root, 'fpm', $children, true, SERVER_CPU, ['DATABASE_URL' => $url('bobbin-bench-fw-fpm')], $fpmFile),
        'fpm-preload' => static fn (): Server => FpmServer::start($root, 'fpm-preload', $children, true, SERVER_CPU, [
            'DATABASE_URL' => $url('bobbin-bench-fw-fpm'),
            'PHP_INI_SCAN_DIR' => "/etc/php/8.2/fpm/conf.d:$preloadDir/$app-ini",
        ], $fpmFile),
        'bobbin-one' => static fn (): Server => BobbinServer::start($root, 'bobbin-one', $bobbinFile, SERVER_CPU, 1, [
            'DATABASE_URL' => $url('bobbin-bench-fw'), 'BOBBIN_CONCURRENCY' => 'one',
        ], '/health'),
    ];
    if ($app === 'laravel') {
        $variants['bobbin-fiber'] = static fn (): Server => BobbinServer::start($root, 'bobbin-fiber', $bobbinFile, SERVER_CPU, 1, [
            'DATABASE_URL' => $url('bobbin-bench-fw'), 'BOBBIN_CONCURRENCY' => 'concurrent',
        ], '/health');
    }
    for ($round = 1; $round <= $rounds; $round++) {
        foreach ($variants as $variant => $start) {
            $server = $start();
            if ($round === 1) {
                $commands[] = "$app $variant: " . $server->command();
            }
            try {
                $results[$app][$variant][] = $measure($server, $endpoint . \random_int(1, 1000));
            } finally {
                $server->stop();
            }
            \fwrite(\STDERR, \sprintf("%s %s round %d: %.0f req/s, %.0f µs CPU/request\n", $app, $variant, $round, ...\array_slice(\end($results[$app][$variant]), 0, 2)));
        }
    }
}

// Hello world through a PSR-15 handler, and the PSR-7 objects' share of it.
$hello = [];
for ($round = 1; $round <= $rounds; $round++) {
    $server = BobbinServer::start($root, 'bobbin-hello', 'examples/hello.php', SERVER_CPU, 1, [], '/');
    try {
        $hello[] = $measure($server, '/');
    } finally {
        $server->stop();
    }
}
$messages = Shell::run(['taskset', '-c', SERVER_CPU, \PHP_BINARY, '-d', 'opcache.enable_cli=1', "$root/bench/http/messages.php", '--n=20000', '--rounds=5'], null, 300.0);
$messagesUs = \preg_match('/\|\s*bobbin\s*\|\s*([\d.]+)/', $messages->stdout, $m) === 1 ? (float) $m[1] : \NAN;
$database->stop();

$median = static function (array $runs, int $field): float {
    $values = \array_column($runs, $field);
    \sort($values);

    return (float) $values[\intdiv(\count($values), 2)];
};
$md = [];
$md[] = \sprintf('Run of %s UTC, `flock /tmp/bobbin-bench.lock php bench/frameworks/run.php --seconds=%s --rounds=%d --children=%d --connections=%d` (%s): server on cpu %s, wrk (`-t1 -c%d`) and PostgreSQL on cpu %s; medians of %d rounds, the variants taking turns.',
    \gmdate('Y-m-d H:i'), $seconds, $rounds, $children, $connections, \php_uname('n'), SERVER_CPU, $connections, LOAD_CPU, $rounds);
$md[] = '';
$md[] = '| app | server | req/s | vs fpm | server CPU µs/request | p99 ms | memory MiB | errors |';
$md[] = '|---|---|---:|---:|---:|---:|---:|---:|';
foreach ($results as $app => $variants) {
    $base = $median($variants['fpm'], 0);
    foreach ($variants as $variant => $runs) {
        $md[] = \sprintf('| %s | %s | %.0f | %.2fx | %.0f | %.1f | %.0f | %d |', $app, $variant, $median($runs, 0), $median($runs, 0) / \max(1.0, $base),
            $median($runs, 1), $median($runs, 2), $median($runs, 3), (int) \array_sum(\array_column($runs, 4)));
    }
    if (!isset($variants['bobbin-fiber'])) {
        $md[] = \sprintf('| %s | bobbin-fiber | not available (no per-fiber context for %s) | | | | | |', $app, $app);
    }
}
$md[] = '';
$helloCpu = $median($hello, 1);
$md[] = \sprintf('Hello world through a PSR-15 closure (`examples/hello.php`, one Bobbin process, same pinning): %.0f req/s, %.1f µs of server CPU per request. '
    . 'Bobbin\'s PSR-7 request + response objects cost %.2f µs per request + response (`bench/http/messages.php`, bobbin row, same run), %.0f %% of that: the most a path without PSR-7 objects could save on hello world, less on any real endpoint.',
    $median($hello, 0), $helloCpu, $messagesUs, 100 * $messagesUs / \max(0.001, $helloCpu));
$md[] = '';
$md[] = 'Commands (DATABASE_URL is the embedded cluster\'s):';
$md[] = '';
foreach ($commands as $command) {
    $md[] = '    ' . \str_replace($root . '/', '', $command);
}
$text = \implode("\n", $md) . "\n";
echo $text;

if (isset($options['write-doc'])) {
    $doc = $root . '/docs/FRAMEWORKS.md';
    $current = (string) \file_get_contents($doc);
    $heading = "## Benchmark, measured\n";
    $start = \strpos($current, $heading);
    $section = $heading . "\n" . $text;
    if ($start === false) {
        $current = \rtrim($current) . "\n\n" . $section;
    } else {
        $end = \strpos($current, "\n## ", $start + 1);
        $current = \substr($current, 0, $start) . $section . ($end === false ? '' : \substr($current, $end));
    }
    \file_put_contents($doc, $current);
}
