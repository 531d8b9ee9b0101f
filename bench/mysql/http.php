<?php

declare(strict_types=1);

/*
 * The MySQL/MariaDB half of issue 21's benchmarks, over HTTP against servers this script starts:
 *
 *   flock /tmp/bobbin-bench.lock php bench/mysql/http.php [--duration=10] [--rounds=3] [--only=sleep,crud]
 *
 * sleep: 200 requests to /sleep (SELECT SLEEP(1), then a UUID) at 100 concurrent clients
 *        against one Bobbin process with a pool of 100, then 200 clients and a pool of 200;
 *        nginx + PHP-FPM (bench/mysql/fpm-mysqli.php) with as many children as clients beside it.
 * crud:  CRUD cycles/s with 50 clients (bench/loadgen's bobbin-crud-load, the cycle of
 *        bench/wrk/crud.lua), server CPU per CRUD and peak
 *        PSS: Bobbin (apps/aircraft/server.php, one process, pool of 32) vs nginx + PHP-FPM
 *        running bench/mysql/fpm-mysqli.php (plain PHP, persistent mysqli) at its best
 *        pm.max_children of 4/8/16. The server on CPU 0, MariaDB and the load on CPU 1, as bench/run
 *        places them; the two variants alternate over --rounds and the medians are shown.
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\Meter;
use Bobbin\Bench\Load\WrkResult;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\FpmServer;
use Bobbin\Bench\Server\Server;

require \dirname(__DIR__) . '/lib/autoload.php';

$options = \getopt('', ['duration::', 'rounds::', 'only::']);
$duration = \max(2, (int) ($options['duration'] ?? 10));
$rounds = \max(1, (int) ($options['rounds'] ?? 3));
$only = \explode(',', (string) ($options['only'] ?? 'sleep,crud'));
$root = \dirname(__DIR__, 2);
\ignore_user_abort(true);
$mysql = \escapeshellarg("$root/scripts/mysql");
$url = \trim((string) \shell_exec("$mysql start >/dev/null 2>&1; $mysql url"));
\shell_exec("$mysql client < " . \escapeshellarg("$root/apps/aircraft/schema-mysql.sql"));
$mariadb = (int) \trim((string) @\file_get_contents("$root/var/mysql/mariadb.pid"));
$pin = static fn (string $cpus) => \shell_exec(\sprintf('taskset -a -p -c %s %d >/dev/null 2>&1', $cpus, $mariadb));
$pin('1');
\register_shutdown_function(static fn () => $pin('0-' . ((int) \trim((string) \shell_exec('nproc')) - 1)));
$rows = [];
$servers = [];
\register_shutdown_function(static function () use (&$servers): void {
    foreach ($servers as $server) {
        $server->stop();
    }
});

$bobbin = static function (int $pool, ?string $cpus) use ($root, $url): BobbinServer {
    return BobbinServer::start($root, 'bobbin', 'apps/aircraft/server.php', $cpus, 1, [
        'DATABASE_URL' => $url, 'DATABASE_POOL_MAX' => (string) $pool, 'DATABASE_POOL_WAIT' => '30',
    ], '/health');
};
$fpm = static function (int $children, ?string $cpus) use ($root, $url): FpmServer {
    return FpmServer::start($root, 'fpm-mysqli', $children, false, $cpus, ['DATABASE_URL' => $url], 'bench/mysql/fpm-mysqli.php');
};
/**
 * $total GET requests, at most $clients at once, each on its own connection: the wall time
 * from the first connect to the last response, and how many were answered 200. (ab adds about
 * a second to its "time taken" here, with every request's own time at ~1.0 s.)
 *
 * @return array{float, int}
 */
function concurrentGets(string $baseUrl, string $path, int $total, int $clients): array
{
    $address = 'tcp://' . \substr($baseUrl, \strlen('http://'));
    $request = "GET $path HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n";
    $started = \microtime(true);
    $open = [];
    $answers = [];
    $sent = 0;
    $ok = 0;
    while ($sent < $total || $open !== []) {
        while ($sent < $total && \count($open) < $clients) {
            $socket = \stream_socket_client($address, $errno, $error, 10);
            if ($socket === false) {
                throw new \RuntimeException("connect: $error");
            }
            \fwrite($socket, $request);
            \stream_set_blocking($socket, false);
            $open[$sent] = $socket;
            $answers[$sent++] = '';
        }
        $read = $open;
        $write = $except = null;
        if (\stream_select($read, $write, $except, 30) === 0) {
            throw new \RuntimeException('no answer within 30 s');
        }
        foreach ($read as $key => $socket) {
            $chunk = (string) \fread($socket, 65536);
            $answers[$key] .= $chunk;
            if ($chunk === '' && \feof($socket)) {
                $ok += \str_starts_with($answers[$key], 'HTTP/1.1 200') ? 1 : 0;
                \fclose($socket);
                unset($open[$key], $answers[$key]);
            }
        }
    }

    return [\microtime(true) - $started, $ok];
}

$median = static function (array $values): float {
    \sort($values);

    return (float) $values[\intdiv(\count($values), 2)];
};

if (\in_array('sleep', $only, true)) {
    foreach ([100, 200] as $clients) {
        foreach (['bobbin' => static fn () => $bobbin($clients, null), 'fpm' => static fn () => $fpm($clients, null)] as $variant => $start) {
            $server = $servers[] = $start();
            $load = static fn (): array => concurrentGets($server->baseUrl(), '/sleep', 200, $clients);
            $load(); // warm-up: connections opened, children forked
            [$seconds, $ok] = $load();
            $pss = ProcessTree::pssKb(ProcessTree::expand($server->rootPids())) / 1024;
            $server->stop();
            \array_pop($servers);
            $rows[] = [
                \sprintf('200 x /sleep, %d clients: %s', $clients, $variant === 'bobbin' ? "Bobbin, one process, pool of $clients" : "nginx + PHP-FPM, $clients children"),
                \sprintf('%.3f s (%d of 200 answered 200; PSS afterwards %.0f MiB)', $seconds, $ok, $pss),
                $variant === 'bobbin' ? ($clients === 100 ? '<= 2.1 s' : '<= 1.2 s') : '',
            ];
        }
    }
}

if (\in_array('crud', $only, true)) {
    $meter = new Meter(ProcessTree::ticksPerSecond());
    // bench/loadgen's one-thread epoll load generator, as bench/run uses: wrk with a thread per
    // connection takes ~45 µs per CRUD of the core it shares with the database.
    \shell_exec('make -s -C ' . \escapeshellarg("$root/bench/loadgen"));
    $wrk = static function (Server $server, int $seconds) use ($root): array {
        return ['taskset', '-c', '1', "$root/bench/loadgen/build/bobbin-crud-load", '--url=' . $server->baseUrl(),
            '--connections=50', '--duration=' . $seconds, '--timeout=10', '--nonce=' . \bin2hex(\random_bytes(6))];
    };
    $measure = static function (Server $server, int $seconds) use ($meter, $wrk): array {
        $metered = $meter->run($server, $wrk($server, $seconds), $seconds + 30.0);
        $result = WrkResult::parse($metered->load->stdout);
        $cycles = $result->get('cycles');

        return [
            'cps' => $cycles / \max(0.001, $result->get('seconds')),
            'cpu' => $cycles > 0 ? $metered->serverCpuSeconds / $cycles * 1e6 : 0.0,
            'pss' => $metered->peakPssKb / 1024,
            'failed' => $result->get('failed_cycles') + $result->get('socket_errors'),
            'busy0' => 100 * ($metered->cpuBusy[0] ?? 0.0),
            'busy1' => 100 * ($metered->cpuBusy[1] ?? 0.0),
        ];
    };
    // The FPM baseline at its best pm.max_children.
    $best = [0, 0.0];
    foreach ([4, 8, 16] as $children) {
        $server = $servers[] = $fpm($children, '0');
        $measure($server, 2);
        $cps = $measure($server, 4)['cps'];
        $server->stop();
        \array_pop($servers);
        if ($cps > $best[1]) {
            $best = [$children, $cps];
        }
    }
    $variants = ['bobbin' => $servers[] = $bobbin(32, '0'), 'fpm' => $servers[] = $fpm($best[0], '0')];
    $samples = [];
    foreach ($variants as $name => $server) {
        $measure($server, 3); // warm-up
    }
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($variants as $name => $server) {
            $samples[$name][] = $measure($server, $duration);
        }
    }
    $summary = [];
    foreach ($samples as $name => $runs) {
        foreach (['cps', 'cpu', 'pss', 'failed', 'busy0', 'busy1'] as $field) {
            $summary[$name][$field] = $median(\array_column($runs, $field));
        }
    }
    [$b, $f] = [$summary['bobbin'], $summary['fpm']];
    $rows[] = ['CRUD cycles/s, 50 clients: Bobbin + this client (one process, pool 32)', \sprintf('%.0f (failed %d)', $b['cps'], $b['failed']), ''];
    $rows[] = [\sprintf('CRUD cycles/s, 50 clients: nginx + PHP-FPM + persistent mysqli (%d children)', $best[0]), \sprintf('%.0f (failed %d)', $f['cps'], $f['failed']), ''];
    $rows[] = ['ratio of CRUD cycles/s', \sprintf('%.2fx', $b['cps'] / \max(1.0, $f['cps'])), '>= 3x'];
    $rows[] = ['server CPU per CRUD: Bobbin / FPM', \sprintf('%.0f µs / %.0f µs = %.2fx', $b['cpu'], $f['cpu'], $b['cpu'] / \max(1.0, $f['cpu'])), '<= 0.25x'];
    $rows[] = ['peak PSS: Bobbin / FPM (nginx + children)', \sprintf('%.1f MiB / %.1f MiB', $b['pss'], $f['pss']), ''];
    $rows[] = ['CPU 0 (server) / CPU 1 (MariaDB + load) busy: Bobbin run', \sprintf('%.0f %% / %.0f %%', $b['busy0'], $b['busy1']), ''];
    $rows[] = ['CPU 0 (server) / CPU 1 (MariaDB + load) busy: FPM run', \sprintf('%.0f %% / %.0f %%', $f['busy0'], $f['busy1']), ''];
}

echo "| measurement | result | target |\n|---|---|---|\n";
foreach ($rows as [$what, $result, $target]) {
    echo "| $what | $result | $target |\n";
}
