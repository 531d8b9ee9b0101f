<?php

declare(strict_types=1);

/*
 * bench/fatal-flood/run.php — issue 34's crash policy at scale, beside nginx + PHP-FPM.
 *
 * Against Bobbin (`bin/bobbin serve bench/fatal-flood/app.php --workers=2 --memory-limit=64M`)
 * and nginx + PHP-FPM (bench/fatal-flood/fpm.php, the same closure, memory_limit 64M,
 * pm = static), both started once and pinned to cpu 0, in interleaved rounds (the order turns
 * each round): --bad requests to /oom, which exhausts memory_limit, kept --concurrency in
 * flight, and beside them healthy GET / kept --healthy-connections in flight until the last bad
 * one is answered; every request on a fresh connection. Before each flood, healthy requests
 * alone for --baseline-seconds. The client runs on cpu 1.
 *
 *   php bench/fatal-flood/run.php [--rounds=3] [--bad=1000] [--concurrency=50]
 *       [--healthy-connections=10] [--baseline-seconds=3] [--fpm-children=8]
 *       [--servers=bobbin,fpm] [--json] [--write-doc]
 *
 * Exits 1 unless, for every server and round: every bad request got 500, every healthy one 200,
 * except 503s (with Retry-After) no more than the server's log says it gave requests in flight
 * on a worker that died (none for PHP-FPM, whose children survive a fatal error); no reset, no
 * timeout; the server answers and all its processes live at the end; no crash loop logged.
 * --write-doc replaces "## Fatal flood beside PHP-FPM, measured" in docs/PROCESS.md and
 * updates docs/BENCHMARKS.md.
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\FloodClient;
use Bobbin\Bench\Report\DocSection;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

require \dirname(__DIR__) . '/lib/autoload.php';
require \dirname(__DIR__, 2) . '/vendor/autoload.php';
\ignore_user_abort(true);
\pcntl_async_signals(true);
foreach ([\SIGINT, \SIGTERM, \SIGHUP] as $signal) {
    \pcntl_signal($signal, static function (int $signal): never {
        throw new \RuntimeException("interrupted by signal $signal");
    });
}

const MEMORY_LIMIT = '64M';
const DOC_HEADING = '## Fatal flood beside PHP-FPM, measured';

$options = \getopt('', ['rounds:', 'bad:', 'concurrency:', 'healthy-connections:', 'baseline-seconds:', 'fpm-children:', 'servers:', 'json', 'write-doc', 'help']);
if (isset($options['help'])) {
    $self = (string) \file_get_contents(__FILE__);
    echo \substr($self, \strpos($self, '/*') + 3, \strpos($self, '*/') - \strpos($self, '/*') - 3), "\n";
    exit(0);
}
$root = \dirname(__DIR__, 2);
$rounds = \max(1, (int) ($options['rounds'] ?? 3));
$bad = \max(1, (int) ($options['bad'] ?? 1000));
$concurrency = \max(1, (int) ($options['concurrency'] ?? 50));
$healthyConnections = \max(1, (int) ($options['healthy-connections'] ?? 10));
$baselineSeconds = (float) ($options['baseline-seconds'] ?? 3);
$fpmChildren = \max(1, (int) ($options['fpm-children'] ?? 8));
$serverNames = \explode(',', (string) ($options['servers'] ?? 'bobbin,fpm'));
foreach (['taskset', '/usr/sbin/nginx'] as $program) {
    if (!Shell::hasProgram($program) && !\is_executable($program)) {
        \fwrite(\STDERR, "$program is not installed (scripts/install-deps installs it)\n");
        exit(1);
    }
}
// The client on cpu 1, the servers on cpu 0.
Shell::run(['taskset', '-p', '-c', '1', (string) \getmypid()]);

/** @var array<string, Server> $servers */
$servers = [];
$rows = [];
try {
    foreach ($serverNames as $name) {
        $servers[$name] = match ($name) {
            'bobbin' => BobbinServer::start($root, 'bobbin', 'bench/fatal-flood/app.php', '0', 2, [], '/', serveOptions: ['--memory-limit=' . MEMORY_LIMIT, '--job-workers=0']),
            // nginx's default: one FastCGI connection per request (a kept one holds its child: see ctl).
            'fpm' => FpmServer::start($root, 'fpm', $fpmChildren, false, '0', [], 'bench/fatal-flood/fpm.php', 1, MEMORY_LIMIT, 0),
            default => throw new \RuntimeException("unknown server $name (bobbin, fpm)"),
        };
    }
    for ($round = 1; $round <= $rounds; $round++) {
        $order = $round % 2 === 1 ? $serverNames : \array_reverse($serverNames);
        foreach ($order as $name) {
            $rows[] = $row = flood($root, $servers[$name], $round, $bad, $concurrency, $healthyConnections, $baselineSeconds);
            \fwrite(\STDERR, \sprintf("round %d %s: %s\n", $round, $name, \json_encode($row)));
        }
    }
} finally {
    $commands = [];
    foreach ($servers as $name => $server) {
        $commands[$name] = $server->command();
        $server->stop();
    }
}

$failures = [];
foreach ($rows as $row) {
    foreach ($row['failures'] as $failure) {
        $failures[] = "round {$row['round']} {$row['server']}: $failure";
    }
}
if (isset($options['json'])) {
    echo \json_encode(['rows' => $rows, 'failures' => $failures], \JSON_PRETTY_PRINT), "\n";
} else {
    $markdown = report($rows, $commands, $failures, $bad, $concurrency, $healthyConnections, $baselineSeconds, $fpmChildren, $rounds);
    echo $markdown;
    if (isset($options['write-doc'])) {
        DocSection::write("$root/docs/PROCESS.md", DOC_HEADING, $markdown);
        DocSection::spliceBenchmarks($root);
    }
}
foreach ($failures as $failure) {
    \fwrite(\STDERR, "FAILED: $failure\n");
}
exit($failures === [] ? 0 : 1);

/** @return array<string, mixed> */
function flood(string $root, Server $server, int $round, int $bad, int $concurrency, int $healthyConnections, float $baselineSeconds): array
{
    $port = (int) \substr($server->baseUrl(), (int) \strrpos($server->baseUrl(), ':') + 1);
    $log = $server instanceof BobbinServer ? "$root/var/bench/bobbin-$port.log" : null;
    $logOffset = $log === null ? 0 : (int) \filesize($log);
    $baseline = $baselineSeconds > 0 ? FloodClient::baseline('127.0.0.1', $port, '/', $healthyConnections, $baselineSeconds) : null;
    $result = FloodClient::run('127.0.0.1', $port, \array_fill(0, $bad, '/oom'), $concurrency, '/', $healthyConnections);
    $after = FloodClient::run('127.0.0.1', $port, \array_fill(0, 5, '/'), 1, '/', 0, 10.0)['bad'];
    \clearstatcache();
    $alive = \array_filter(processesOf($server), static fn (int $pid): bool => \posix_kill($pid, 0));
    $up = \array_column($after, 'status') === [200, 200, 200, 200, 200] && \count($alive) === \count(processesOf($server));

    $tally = static function (array $results): array {
        $counts = [];
        foreach ($results as $r) {
            $counts[(string) $r['status']] = ($counts[(string) $r['status']] ?? 0) + 1;
        }
        \ksort($counts);

        return $counts;
    };
    $badCounts = $tally($result['bad']);
    $healthyCounts = $tally($result['healthy']);
    $served = \count(\array_filter($result['healthy'], static fn (array $r): bool => $r['status'] === 200));
    $unavailable = ($badCounts['503'] ?? 0) + ($healthyCounts['503'] ?? 0);
    $withoutRetryAfter = \count(\array_filter([...$result['bad'], ...$result['healthy']], static fn (array $r): bool => $r['status'] === 503 && !$r['retryAfter']));

    // What the server says: each worker that a request ended logs the requests it answered.
    $deaths = $namedUnavailable = $crashLoops = 0;
    if ($log !== null) {
        $text = (string) \file_get_contents($log, false, null, $logOffset);
        $crashLoops = \substr_count($text, 'crash loop:');
        if (\preg_match_all('~The process ended while handling (\d+) request\(s\): (.*?); (?:fatal error|exit\(\))[^\n]*?(?:; (\d+) request\(s\) not yet started were answered 503)?\n~', $text, $matches, \PREG_SET_ORDER) > 0) {
            foreach ($matches as $m) {
                $deaths++;
                $namedUnavailable += (int) $m[1] - \substr_count($m[2], '(its code ended the process)') + (int) ($m[3] ?? 0);
            }
        }
    }

    $failures = [];
    // (Numeric keys of the tallies are integers.)
    foreach ($badCounts as $status => $n) {
        if ($status !== 500 && $status !== 503) {
            $failures[] = "$n bad request(s) answered $status";
        }
    }
    foreach ($healthyCounts as $status => $n) {
        if ($status !== 200 && $status !== 503) {
            $failures[] = "$n healthy request(s) answered $status";
        }
    }
    if ($unavailable > $namedUnavailable) {
        $failures[] = \sprintf('%d answers 503, but the log names %d request(s) in flight on a dying worker', $unavailable, $namedUnavailable);
    }
    if ($withoutRetryAfter > 0) {
        $failures[] = "$withoutRetryAfter answer(s) 503 without Retry-After";
    }
    if ($crashLoops > 0) {
        $failures[] = "the log reports a crash loop $crashLoops time(s)";
    }
    if (!$up) {
        $failures[] = 'not up at the end: ' . \json_encode(\array_column($after, 'status')) . ', processes alive ' . \count($alive) . '/' . \count(processesOf($server));
    }

    return [
        'round' => $round,
        'server' => $server->name(),
        'bad' => $badCounts,
        'healthy' => $healthyCounts,
        'flood_seconds' => \round($result['seconds'], 2),
        'healthy_per_s' => \round($served / \max(0.001, $result['seconds']), 1),
        'baseline_per_s' => $baseline === null ? null : \round($baseline['answered'] / \max(0.001, $baseline['seconds']), 1),
        'bad_p50_ms' => percentileMs($result['bad'], 50),
        'healthy_p99_ms' => percentileMs($result['healthy'], 99),
        'deaths_logged' => $log === null ? null : $deaths,
        'unavailable_logged' => $log === null ? null : $namedUnavailable,
        'up' => $up,
        'resets' => \array_values(\array_slice(\array_map(
            static fn (array $r): string => $r['status'] . ': ' . ($r['detail'] ?? ''),
            \array_filter([...$result['bad'], ...$result['healthy']], static fn (array $r): bool => !\is_int($r['status'])),
        ), 0, 10)),
        'failures' => $failures,
    ];
}

/** @return list<int> the server's root processes and their children (nginx and FPM: master and children) */
function processesOf(Server $server): array
{
    if ($server instanceof BobbinServer) {
        return $server->rootPids();
    }
    $pids = $server->rootPids();
    foreach ($server->rootPids() as $pid) {
        foreach (\explode(' ', \trim((string) @\file_get_contents("/proc/$pid/task/$pid/children"))) as $child) {
            if ($child !== '') {
                $pids[] = (int) $child;
            }
        }
    }

    return \array_values(\array_unique($pids));
}

/** @param list<array{status: int|string, seconds: float, retryAfter: bool}> $results */
function percentileMs(array $results, float $p): float
{
    $seconds = \array_column($results, 'seconds');
    if ($seconds === []) {
        return 0.0;
    }
    \sort($seconds);

    return \round(1000 * $seconds[(int) \min(\count($seconds) - 1, \max(0, \ceil($p / 100 * \count($seconds)) - 1))], 1);
}

/**
 * @param list<array<string, mixed>> $rows
 * @param array<string, string> $commands
 * @param list<string> $failures
 */
function report(array $rows, array $commands, array $failures, int $bad, int $concurrency, int $healthy, float $baselineSeconds, int $fpmChildren, int $rounds): string
{
    $count = static fn (array $counts, string $status): int => (int) ($counts[$status] ?? 0);
    $others = static fn (array $counts, array $known): int => \array_sum(\array_diff_key($counts, \array_flip($known)));
    $md = [
        \sprintf(
            'Run of %s UTC, `flock /tmp/bobbin-bench.lock php bench/fatal-flood/run.php%s`: %d rounds, the order of the servers turned each round. Each round, per server: %s requests to `/oom` (allocates 1 MiB strings until `memory_limit` = %s ends it) kept %d in flight, and beside them healthy `GET /` kept %d in flight until the last bad one was answered, every request on a fresh connection; before it, %.0f s of healthy requests alone. Servers on cpu 0, the client on cpu 1; 2 vCPUs shared with other work, so read the rates side by side within a round.',
            \gmdate('Y-m-d H:i'),
            $rounds === 3 ? '' : " --rounds=$rounds",
            $rounds,
            \number_format($bad),
            MEMORY_LIMIT,
            $concurrency,
            $healthy,
            $baselineSeconds,
        ),
        '',
        '| round | server | bad: 500 | bad: 503 | bad: reset / other | healthy: 200 | healthy: 503 | healthy: reset / other | healthy req/s under the flood | healthy req/s alone | flood s | worker deaths logged | up at the end |',
        '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ];
    foreach ($rows as $r) {
        $md[] = \sprintf(
            '| %d | %s | %d | %d | %d | %d | %d | %d | %s | %s | %.1f | %s | %s |',
            $r['round'], $r['server'],
            $count($r['bad'], '500'), $count($r['bad'], '503'), $others($r['bad'], ['500', '503']),
            $count($r['healthy'], '200'), $count($r['healthy'], '503'), $others($r['healthy'], ['200', '503']),
            \number_format($r['healthy_per_s'], 1), $r['baseline_per_s'] === null ? '–' : \number_format($r['baseline_per_s'], 1),
            $r['flood_seconds'], $r['deaths_logged'] ?? '– (children survive)', $r['up'] ? 'yes' : '**no**',
        );
    }
    $md[] = '';
    $md[] = $failures === []
        ? 'Every bad request was answered 500 or, in flight on a worker another one ended, 503 with `Retry-After` (no more 503s than the worker logs named); every healthy one 200 or such a 503; no reset, no timeout; both servers up at the end, no crash loop. **Result: ok.**'
        : "**Result: FAILED** —\n\n" . \implode("\n", \array_map(static fn (string $f): string => "- $f", $failures));
    $md[] = '';
    $md[] = 'Servers: `' . \implode('` and `', \array_map(static fn (string $c): string => \str_replace(\PHP_BINARY, 'php', $c), $commands)) . "` (PHP-FPM: `pm = static`, $fpmChildren children, `memory_limit` " . MEMORY_LIMIT . ', nginx opening one FastCGI connection per request, its default). A fatal error ends only the request under PHP-FPM (the child lives on); under Bobbin it ends the worker, which the master replaces at once, and the requests that worker held besides get 503 (`docs/PROCESS.md`, "Crash recovery").';

    return \implode("\n", $md) . "\n";
}
