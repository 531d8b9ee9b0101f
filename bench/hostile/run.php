<?php

declare(strict_types=1);

/*
 * bench/hostile/run.php — legitimate clients beside slow-client attacks (issue 16).
 *
 * For each attack of slowhttptest (slowloris -H, slow body -B, slow read -X) at each number of
 * connections, against one Bobbin worker (examples/hello.php, pinned to cpu 0) and against nginx
 * (one worker process, 4,096 worker_connections, `return 200`, also on cpu 0): the attack ramps
 * up, then a probe opens a fresh connection for one GET 4 times a second; reported: how many
 * probes were answered (200 within 5 s) and their latency. Attacker and probe run on cpu 1.
 *
 *   php bench/hostile/run.php [--connections=1000,4000] [--attacks=slowloris,slowbody,slowread]
 *       [--servers=bobbin,nginx] [--probe-seconds=30] [--rate=200] [--bobbin-option=--max-connections=100 …]
 *       [--json] [--write-doc]
 *
 * --write-doc replaces the "## Hostile traffic, measured" section of docs/HTTP.md.
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\FreshRequestProbe;
use Bobbin\Bench\Server\BobbinServer;

require \dirname(__DIR__) . '/lib/autoload.php';
\ignore_user_abort(true);

const ATTACKS = [
    // slowhttptest arguments of each attack; every one sends or reads a few bytes per 10 s.
    'slowloris' => ['-H', '-i', '10', '-x', '24'],
    'slowbody' => ['-B', '-i', '10', '-x', '24', '-s', '65536'],
    'slowread' => ['-X', '-k', '8', '-n', '10', '-w', '1', '-y', '16', '-z', '8'],
];

$options = \getopt('', ['connections:', 'attacks:', 'servers:', 'probe-seconds:', 'rate:', 'bobbin-option:', 'json', 'write-doc', 'help']);
if (isset($options['help'])) {
    echo \substr((string) \file_get_contents(__FILE__), \strpos((string) \file_get_contents(__FILE__), '/*') + 3, 900), "\n";
    exit(0);
}
$root = \dirname(__DIR__, 2);
$connectionCounts = \array_map('intval', \explode(',', (string) ($options['connections'] ?? '1000,4000')));
$attacks = \explode(',', (string) ($options['attacks'] ?? 'slowloris,slowbody,slowread'));
$servers = \explode(',', (string) ($options['servers'] ?? 'bobbin,nginx'));
$probeSeconds = (float) ($options['probe-seconds'] ?? 30);
$rate = (int) ($options['rate'] ?? 200);
$bobbinOptions = \array_values((array) ($options['bobbin-option'] ?? []));
foreach ($attacks as $attack) {
    if (!isset(ATTACKS[$attack])) {
        \fwrite(\STDERR, "unknown attack $attack (" . \implode(', ', \array_keys(ATTACKS)) . ")\n");
        exit(2);
    }
}
foreach (['slowhttptest', 'taskset'] as $program) {
    if (!Shell::hasProgram($program)) {
        \fwrite(\STDERR, "$program is not installed (scripts/install-deps installs it)\n");
        exit(1);
    }
}

$rows = [];
foreach ($attacks as $attack) {
    foreach ($connectionCounts as $connections) {
        foreach ($servers as $serverName) {
            $rows[] = measure($root, $serverName, $attack, $connections, $probeSeconds, $rate, $bobbinOptions);
            \fwrite(\STDERR, \sprintf("%s %d %s: %s\n", $attack, $connections, $serverName, \json_encode(\end($rows))));
        }
    }
}

if (isset($options['json'])) {
    echo \json_encode($rows, \JSON_PRETTY_PRINT), "\n";
    exit(0);
}
$table = table($rows, $probeSeconds, $rate);
echo $table;
if (isset($options['write-doc'])) {
    writeDoc($root . '/docs/HTTP.md', $table);
}

/**
 * @param list<string> $bobbinOptions
 * @return array<string, int|float|string>
 */
function measure(string $root, string $server, string $attack, int $connections, float $probeSeconds, int $rate, array $bobbinOptions): array
{
    [$port, $stop, $pids] = $server === 'nginx' ? startNginx($root) : startBobbin($root, $bobbinOptions);
    $attackSeconds = (int) \ceil($connections / $rate + 3 + $probeSeconds + 5);
    $attacker = Shell::start(
        ['taskset', '-c', '1', 'sh', '-c', 'ulimit -n "$(ulimit -Hn)"; exec slowhttptest "$@"', 'sh',
            ...ATTACKS[$attack], '-c', (string) $connections, '-r', (string) $rate, '-l', (string) $attackSeconds,
            '-u', "http://127.0.0.1:$port/", '-p', '5'],
        [],
        "$root/var/bench/hostile-slowhttptest.log",
    );
    try {
        \sleep((int) \ceil($connections / $rate + 3));
        $held = establishedConnections($port);
        $probe = (new FreshRequestProbe('127.0.0.1', $port))->run($probeSeconds);
        $alive = \array_filter($pids, static fn (int $pid): bool => \posix_kill($pid, 0));
    } finally {
        $attacker->stop(2.0);
        $stop();
    }

    return [
        'attack' => $attack,
        'connections' => $connections,
        'server' => $server,
        'held' => $held,
        'probes' => $probe->sent(),
        'answered' => $probe->answered(),
        'answered_pct' => $probe->sent() === 0 ? 0.0 : 100.0 * $probe->answered() / $probe->sent(),
        'p50_ms' => ms($probe->percentile(50)),
        'p99_ms' => ms($probe->percentile(99)),
        'max_ms' => ms($probe->percentile(100)),
        'server_alive' => \count($alive) === \count($pids) ? 'yes' : 'no',
    ];
}

function ms(float $seconds): float|string
{
    return \is_finite($seconds) ? \round($seconds * 1000, 1) : 'timeout';
}

/**
 * @param list<string> $options
 * @return array{int, \Closure(): void, list<int>}
 */
function startBobbin(string $root, array $options): array
{
    $server = BobbinServer::start($root, 'bobbin', 'examples/hello.php', '0', 1, [], '/', serveOptions: $options);
    $port = (int) \substr($server->baseUrl(), (int) \strrpos($server->baseUrl(), ':') + 1);

    return [$port, $server->stop(...), $server->rootPids()];
}

/** @return array{int, \Closure(): void, list<int>} */
function startNginx(string $root): array
{
    $port = Shell::freePort();
    $dir = "$root/var/bench/hostile-nginx";
    @\mkdir("$dir/logs", 0777, true);
    \file_put_contents("$dir/nginx.conf", <<<CONF
        worker_processes 1;
        worker_rlimit_nofile 20000;
        error_log $dir/logs/error.log warn;
        pid $dir/nginx.pid;
        events { worker_connections 4096; }
        http {
            access_log off;
            client_body_temp_path $dir/body;
            server {
                listen 127.0.0.1:$port backlog=1024;
                location / { default_type text/plain; return 200 "Hello, World!\\n"; }
            }
        }
        CONF);
    $process = Shell::start(['taskset', '-c', '0', '/usr/sbin/nginx', '-p', $dir, '-c', "$dir/nginx.conf", '-g', 'daemon off;'], [], "$dir/logs/stdout.log");
    Server\Readiness::await("http://127.0.0.1:$port/", 10.0, $process->isRunning(...));
    $pid = (int) \trim((string) @\file_get_contents("$dir/nginx.pid"));

    return [$port, static function () use ($process): void {
        $process->stop(5.0);
    }, $pid > 0 ? [$pid] : []];
}

/** Established TCP connections on the server's port (the attack's and the probe's), from ss(8). */
function establishedConnections(int $port): int|string
{
    $result = Shell::run(['ss', '-Htn', 'state', 'established', "( sport = :$port )"]);

    return $result->exitCode === 0 ? \substr_count($result->stdout, "\n") : 'n/a';
}

/** @param list<array<string, int|float|string>> $rows */
function table(array $rows, float $probeSeconds, int $rate): string
{
    $md = [
        \sprintf('Run of %s, `php bench/hostile/run.php` (slowhttptest %s connections/s, probe %d s at 4 fresh requests/s, 5 s timeout; server on cpu 0, attacker and probe on cpu 1):', \date('Y-m-d H:i'), $rate, $probeSeconds),
        '',
        '| attack | connections | server | held at probe start | probes answered | p50 ms | p99 ms | max ms | server alive |',
        '|---|---:|---|---:|---:|---:|---:|---:|---|',
    ];
    foreach ($rows as $r) {
        $md[] = \sprintf(
            '| %s | %d | %s | %s | %d / %d (%.1f %%) | %s | %s | %s | %s |',
            $r['attack'], $r['connections'], $r['server'], $r['held'], $r['answered'], $r['probes'], $r['answered_pct'],
            $r['p50_ms'], $r['p99_ms'], $r['max_ms'], $r['server_alive'],
        );
    }

    return \implode("\n", $md) . "\n";
}

function writeDoc(string $path, string $table): void
{
    $heading = '## Hostile traffic, measured';
    $text = (string) \file_get_contents($path);
    $start = \strpos($text, "\n$heading\n");
    $section = "\n$heading\n\n$table";
    if ($start === false) {
        $text = \rtrim($text) . "\n" . $section;
    } else {
        $end = \strpos($text, "\n## ", $start + 1);
        $text = \substr($text, 0, $start) . $section . ($end === false ? '' : "\n" . \substr($text, $end + 1));
    }
    \file_put_contents($path, $text);
}
