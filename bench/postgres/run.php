<?php

declare(strict_types=1);

/*
 * Benchmarks of the PostgreSQL client (issue 4), against the checkout's embedded cluster:
 *
 *   php bench/postgres/run.php [--queries=20000] [--seconds=10] [--only=sleep,cpu,qps]
 *
 * 1. sleep: 100 fibers each run SELECT pg_sleep(1) over a pool of max 100: wall time.
 * 2. cpu:   client CPU (user+sys of this process) per query, one caller, SELECT by id from a
 *           small table: this client (prepared, via the pool) vs blocking pg_query_params and
 *           blocking pg_execute loops on one connection.
 * 3. qps:   queries/s with 50 fibers over a pool of 50 vs pgbench -c 50 -M prepared running the
 *           same statement for the same time.
 *
 * Placement, as in bench/run: this process (and pgbench) on CPU 0, PostgreSQL (postmaster and
 * every backend) on CPU 1; PostgreSQL is unpinned again at the end. Client CPU per query depends
 * on placement (a wake-up on the other CPU costs more than one on the same), so it is fixed.
 * The CPU measurements are interleaved over --rounds rounds and the medians shown.
 *
 * Prints a Markdown table. It relaunches itself once with opcache and the tracing JIT, as
 * `bin/bobbin serve` runs PHP.
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Revolt\EventLoop;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

// PHP runs as `bin/bobbin serve` runs it: opcache with the tracing JIT (Bobbin\Cli\OpcacheRelaunch);
// both sides of every comparison run in this one process, so both get it.
if (\getenv('BOBBIN_BENCH_RELAUNCHED') === false && \function_exists('pcntl_exec') && !\filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    \pcntl_exec(\PHP_BINARY, [...$settings, __FILE__, ...\array_slice($argv, 1)], [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}

$options = \getopt('', ['queries::', 'seconds::', 'only::', 'rounds::']);
$rounds = \max(1, (int) ($options['rounds'] ?? 5));
$queries = (int) ($options['queries'] ?? 20000);
$seconds = (int) ($options['seconds'] ?? 10);
$only = \explode(',', (string) ($options['only'] ?? 'sleep,cpu,qps'));
$root = \dirname(__DIR__, 2);
$dsn = \trim((string) \shell_exec(\escapeshellarg("$root/scripts/pg") . ' start >/dev/null 2>&1; ' . \escapeshellarg("$root/scripts/pg") . ' url'));
$table = 'pgbench_bobbin_items';
$statement = "SELECT id, name, price, active FROM $table WHERE id = \$1";
$rows = [];

$cpus = (int) \trim((string) \shell_exec('nproc'));
$postmaster = (int) \strtok((string) @\file_get_contents("$root/var/pg/data/postmaster.pid"), "\n");
$pinPostgres = static function (string $cpuList) use ($postmaster): void {
    // -a: every thread; backends started later inherit the postmaster's mask.
    \shell_exec(\sprintf('for p in %d $(pgrep -P %d); do taskset -a -p -c %s "$p"; done >/dev/null 2>&1', $postmaster, $postmaster, $cpuList));
};
if ($cpus >= 2 && $postmaster > 0) {
    \shell_exec(\sprintf('taskset -a -p -c 0 %d >/dev/null 2>&1', \getmypid()));
    $pinPostgres('1');
    \register_shutdown_function(static fn () => $pinPostgres('0-' . ($cpus - 1)));
    // A closed stdout must not skip that (PHP's CLI treats it as a user abort and bails out).
    \ignore_user_abort(true);
}

$setup = \pg_connect($dsn, \PGSQL_CONNECT_FORCE_NEW);
\pg_query($setup, "DROP TABLE IF EXISTS $table");
\pg_query($setup, "CREATE TABLE $table (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, active bool NOT NULL)");
\pg_query($setup, "INSERT INTO $table SELECT i, 'item ' || i, i * 1.5, i % 2 = 0 FROM generate_series(1, 1000) i");

$cpu = static function (): float {
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
};

if (\in_array('sleep', $only, true)) {
    $pool = new ConnectionPool(PoolConfig::fromConnectionString($dsn, maxSize: 100, acquireTimeout: 30.0));
    $started = \microtime(true);
    Future::awaitAll(\array_map(static fn () => Async::run(static fn () => $pool->query('SELECT pg_sleep(1)')), \range(1, 100)));
    $rows[] = ['100 fibers x SELECT pg_sleep(1), pool max 100 (cold: connects included)', \sprintf('%.3f s wall', \microtime(true) - $started), '<= 1.2 s'];
    $started = \microtime(true);
    Future::awaitAll(\array_map(static fn () => Async::run(static fn () => $pool->query('SELECT pg_sleep(1)')), \range(1, 100)));
    $rows[] = ['the same again (warm pool)', \sprintf('%.3f s wall', \microtime(true) - $started), '<= 1.2 s'];
    $pool->close();
}

if (\in_array('cpu', $only, true)) {
    $blocking = \pg_connect($dsn, \PGSQL_CONNECT_FORCE_NEW);
    $measure = static function (Closure $loop) use ($cpu, $queries): float {
        $loop(\intdiv($queries, 10)); // warm-up
        $before = $cpu();
        $loop($queries);

        return ($cpu() - $before) / $queries * 1e6;
    };
    $params = static fn (int $i): int => $i % 1000 + 1;
    \pg_prepare($blocking, 'bench', $statement);
    $pool = new ConnectionPool(PoolConfig::fromConnectionString($dsn, maxSize: 1));
    $loops = [
        'plain' => static function (int $n) use ($blocking, $statement, $params): void {
            for ($i = 0; $i < $n; $i++) {
                \pg_fetch_all(\pg_query_params($blocking, $statement, [$params($i)]));
            }
        },
        'prepared' => static function (int $n) use ($blocking, $params): void {
            for ($i = 0; $i < $n; $i++) {
                \pg_fetch_all(\pg_execute($blocking, 'bench', [$params($i)]));
            }
        },
        'ours' => static function (int $n) use ($pool, $statement, $params): void {
            for ($i = 0; $i < $n; $i++) {
                $pool->queryOne($statement, [$params($i)]);
            }
        },
        'inFiber' => static function (int $n) use ($pool, $statement, $params): void {
            Async::run(static function () use ($n, $pool, $statement, $params): void {
                for ($i = 0; $i < $n; $i++) {
                    $pool->queryOne($statement, [$params($i)]);
                }
            })->await();
        },
        // As inside `bin/bobbin serve`: the loop also watches other streams (there, the listening
        // socket and the client connections), so every wait goes through the loop's poll instead
        // of waiting inside libpq.
        'busyLoop' => static function (int $n) use ($pool, $statement, $params): void {
            // Both ends stay open until the end, so the watched one never becomes readable.
            [$quiet, $peer] = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
            $watch = EventLoop::onReadable($quiet, static function (): void {
            });
            EventLoop::unreference($watch);
            try {
                Async::run(static function () use ($n, $pool, $statement, $params): void {
                    for ($i = 0; $i < $n; $i++) {
                        $pool->queryOne($statement, [$params($i)]);
                    }
                })->await();
            } finally {
                EventLoop::cancel($watch);
                \fclose($peer);
            }
        },
    ];
    $samples = \array_fill_keys(\array_keys($loops), []);
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($loops as $name => $loop) {
            $samples[$name][] = $measure($loop);
        }
    }
    $median = static function (array $values): float {
        \sort($values);
        $middle = \intdiv(\count($values), 2);

        return \count($values) % 2 === 1 ? $values[$middle] : ($values[$middle - 1] + $values[$middle]) / 2;
    };
    ['plain' => $plain, 'prepared' => $prepared, 'ours' => $ours, 'inFiber' => $inFiber, 'busyLoop' => $busyLoop] = \array_map($median, $samples);
    $pool->close();
    $rows[] = ['client CPU per query: blocking pg_query_params loop', \sprintf('%.1f µs', $plain), 'baseline'];
    $rows[] = ['client CPU per query: blocking pg_execute (prepared) loop', \sprintf('%.1f µs', $prepared), ''];
    $rows[] = ['client CPU per query: Bobbin pool, plain script (loop driven per call)', \sprintf('%.1f µs (%.2fx pg_query_params, %.2fx pg_execute)', $ours, $ours / $plain, $ours / $prepared), '<= 1.3x'];
    $rows[] = ['client CPU per query: Bobbin pool, inside one fiber', \sprintf('%.1f µs (%.2fx pg_query_params, %.2fx pg_execute)', $inFiber, $inFiber / $plain, $inFiber / $prepared), '<= 1.3x'];
    $rows[] = ['client CPU per query: Bobbin pool, inside one fiber, the loop watching other streams (as in a server)', \sprintf('%.1f µs (%.2fx pg_query_params, %.2fx pg_execute)', $busyLoop, $busyLoop / $plain, $busyLoop / $prepared), ''];
}

if (\in_array('qps', $only, true)) {
    $pool = new ConnectionPool(PoolConfig::fromConnectionString($dsn, maxSize: 50, acquireTimeout: 30.0));
    $pool->queryOne($statement, [1]);
    $done = 0;
    $until = \microtime(true) + $seconds;
    $before = $cpu();
    $started = \microtime(true);
    $fibers = [];
    for ($f = 1; $f <= 50; $f++) {
        $fibers[] = Async::run(static function () use ($pool, $statement, $until, $f, &$done): void {
            $i = $f;
            while (\microtime(true) < $until) {
                $pool->queryOne($statement, [$i++ % 1000 + 1]);
                $done++;
            }
        });
    }
    Future::awaitAll($fibers);
    $elapsed = \microtime(true) - $started;
    $ourQps = $done / $elapsed;
    $ourCpu = ($cpu() - $before) / $done * 1e6;
    $pool->close();

    \preg_match('/port=(\d+)/', $dsn, $port);
    \preg_match('/host=(\S+)/', $dsn, $host);
    $script = \tempnam(\sys_get_temp_dir(), 'pgbench');
    \file_put_contents($script, "\\set id random(1, 1000)\nSELECT id, name, price, active FROM $table WHERE id = :id;\n");
    \chmod($script, 0644);
    $pgbench = \trim((string) \shell_exec('ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1')) . '/pgbench';
    $output = (string) \shell_exec(\sprintf(
        'PGPASSWORD=bobbin taskset -c 0 %s -n -h %s -p %d -U bobbin -M prepared -c 50 -j 2 -T %d -f %s bobbin 2>&1',
        \escapeshellarg($pgbench),
        \escapeshellarg($host[1]),
        (int) $port[1],
        $seconds,
        \escapeshellarg($script),
    ));
    \unlink($script);
    \preg_match('/tps = ([\d.]+)/', $output, $tps);
    $pgbenchQps = (float) ($tps[1] ?? 0.0);
    $rows[] = ['queries/s, 50 fibers, pool max 50, prepared SELECT by id', \sprintf('%.0f q/s (%.1f µs client CPU/query)', $ourQps, $ourCpu), ''];
    $rows[] = ['queries/s, pgbench -c 50 -j 2 -M prepared, same statement', \sprintf('%.0f q/s', $pgbenchQps), ''];
    $rows[] = ['ratio Bobbin / pgbench', $pgbenchQps > 0 ? \sprintf('%.2fx', $ourQps / $pgbenchQps) : 'pgbench failed: ' . \trim($output), '>= 0.9x'];
}

\pg_query($setup, "DROP TABLE IF EXISTS $table");

echo "| measurement | result | target |\n|---|---|---|\n";
foreach ($rows as [$what, $result, $target]) {
    echo "| $what | $result | $target |\n";
}
