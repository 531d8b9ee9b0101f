<?php

declare(strict_types=1);

/*
 * Benchmarks of the MySQL/MariaDB client (issue 21), against the checkout's embedded MariaDB:
 *
 *   php bench/mysql/run.php [--queries=20000] [--seconds=8] [--rounds=5] [--only=sleep,cpu,qps]
 *
 * 1. sleep: 200 fibers each run SELECT SLEEP(1) over a pool of max 100, then of max 200: wall time.
 * 2. cpu:   client CPU (user+sys of this process) per query, one caller, SELECT by id from a
 *           small table: this client (prepared, via the pool) vs mysqli (mysqlnd) on one
 *           connection, prepared and plain, in blocking loops; and an INSERT of three parameters
 *           into an AUTO_INCREMENT table, reading the id, against mysqli prepared.
 * 3. qps:   queries/s with 50 fibers over a pool of 50 vs mariadb-slap with 50 clients running
 *           the same statement (the database's ceiling, a C client).
 *
 * Placement, as bench/postgres/run.php: this process (and mariadb-slap) on CPU 0, MariaDB on CPU 1,
 * unpinned again at the end. The CPU loops are interleaved over --rounds and the medians shown.
 * It relaunches itself once with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 * Run it under the machine-wide lock: flock /tmp/bobbin-bench.lock php bench/mysql/run.php
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;
use Revolt\EventLoop;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

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
$seconds = (int) ($options['seconds'] ?? 8);
$only = \explode(',', (string) ($options['only'] ?? 'sleep,cpu,qps'));
$root = \dirname(__DIR__, 2);
$script = \escapeshellarg("$root/scripts/mysql");
$url = \trim((string) \shell_exec("$script start >/dev/null 2>&1; $script url"));
\parse_str((string) \parse_url($url, \PHP_URL_QUERY), $query);
$socket = (string) ($query['unix_socket'] ?? '');
$table = 'bench_mysql_items';
$statement = "SELECT id, name, price, active FROM $table WHERE id = ?";
$rows = [];

$cpus = (int) \trim((string) \shell_exec('nproc'));
$serverPid = (int) \trim((string) @\file_get_contents((\getenv('BOBBIN_MYSQL_HOME') ?: "$root/var/mysql") . '/mariadb.pid'));
$pinServer = static function (string $cpuList) use ($serverPid): void {
    \shell_exec(\sprintf('taskset -a -p -c %s %d >/dev/null 2>&1', $cpuList, $serverPid));
};
if ($cpus >= 2 && $serverPid > 0) {
    \shell_exec(\sprintf('taskset -a -p -c 0 %d >/dev/null 2>&1', \getmypid()));
    $pinServer('1');
    \register_shutdown_function(static fn () => $pinServer('0-' . ($cpus - 1)));
    \ignore_user_abort(true);
}

$mysqli = static fn (): mysqli => new mysqli('localhost', 'bobbin', 'bobbin', 'bobbin', 0, $socket);
$setup = $mysqli();
$setup->query("DROP TABLE IF EXISTS $table");
$setup->query("CREATE TABLE $table (id int PRIMARY KEY, name varchar(50) NOT NULL, price decimal(10,2) NOT NULL, active bool NOT NULL) ENGINE=InnoDB");
$setup->query("INSERT INTO $table SELECT seq, CONCAT('item ', seq), seq * 1.5, seq % 2 = 0 FROM seq_1_to_1000");
$setup->query("DROP TABLE IF EXISTS {$table}_log");
$setup->query("CREATE TABLE {$table}_log (id bigint unsigned AUTO_INCREMENT PRIMARY KEY, name varchar(50) NOT NULL, price decimal(10,2) NOT NULL, active bool NOT NULL) ENGINE=InnoDB");
$insert = "INSERT INTO {$table}_log (name, price, active) VALUES (?, ?, ?)";

$cpu = static function (): float {
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
};

if (\in_array('sleep', $only, true)) {
    foreach ([100, 200] as $size) {
        $pool = new ConnectionPool(PoolConfig::fromUrl($url, maxSize: $size, acquireTimeout: 30.0));
        foreach (['cold: connects included', 'warm pool'] as $label) {
            $started = \microtime(true);
            Future::awaitAll(\array_map(static fn () => Async::run(static fn () => $pool->query('SELECT SLEEP(1)')), \range(1, 200)));
            $rows[] = [\sprintf('200 fibers x SELECT SLEEP(1), pool max %d (%s)', $size, $label), \sprintf('%.3f s wall', \microtime(true) - $started), $size === 100 ? '<= 2.1 s' : '<= 1.2 s'];
        }
        $pool->close();
    }
}

if (\in_array('cpu', $only, true)) {
    $params = static fn (int $i): int => $i % 1000 + 1;
    $plain = $mysqli();
    $prepared = $mysqli();
    $stmt = $prepared->prepare($statement);
    $insertStmt = $prepared->prepare($insert);
    $pool = new ConnectionPool(PoolConfig::fromUrl($url, maxSize: 1));
    $loops = [
        'mysqliPrepared' => static function (int $n) use ($stmt, $params): void {
            for ($i = 0; $i < $n; $i++) {
                $id = $params($i);
                $stmt->bind_param('i', $id);
                $stmt->execute();
                $stmt->get_result()->fetch_assoc();
            }
        },
        'mysqliInsert' => static function (int $n) use ($insertStmt): void {
            for ($i = 0; $i < $n; $i++) {
                $name = 'item';
                $price = '1.50';
                $active = $i & 1;
                $insertStmt->bind_param('ssi', $name, $price, $active);
                $insertStmt->execute();
                $insertStmt->insert_id;
            }
        },
        'oursInsert' => static function (int $n) use ($pool, $insert): void {
            for ($i = 0; $i < $n; $i++) {
                $pool->query($insert, ['item', '1.50', $i & 1])->lastInsertId;
            }
        },
        'mysqliQuery' => static function (int $n) use ($plain, $table, $params): void {
            for ($i = 0; $i < $n; $i++) {
                $plain->query("SELECT id, name, price, active FROM $table WHERE id = " . $params($i))->fetch_assoc();
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
        'busyLoop' => static function (int $n) use ($pool, $statement, $params): void {
            // As in a server: other streams are watched, so every wait goes through the poll.
            $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
            \assert($pair !== false);
            $watch = EventLoop::onReadable($pair[0], static fn () => null);
            try {
                Async::run(static function () use ($n, $pool, $statement, $params): void {
                    for ($i = 0; $i < $n; $i++) {
                        $pool->queryOne($statement, [$params($i)]);
                    }
                })->await();
            } finally {
                EventLoop::cancel($watch);
            }
        },
    ];
    foreach ($loops as $loop) {
        $loop(500); // warm-up: statements prepared, JIT traces compiled
    }
    $samples = \array_fill_keys(\array_keys($loops), []);
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($loops as $name => $loop) {
            $before = $cpu();
            $loop($queries);
            $samples[$name][] = ($cpu() - $before) / $queries * 1e6;
        }
    }
    $median = static function (array $values): float {
        \sort($values);

        return $values[\intdiv(\count($values), 2)];
    };
    $m = \array_map($median, $samples);
    $pool->close();
    $rows[] = ['client CPU/query: mysqli prepared (execute + get_result), one connection', \sprintf('%.1f µs', $m['mysqliPrepared']), 'baseline'];
    $rows[] = ['client CPU/query: mysqli->query(), one connection', \sprintf('%.1f µs', $m['mysqliQuery']), ''];
    $rows[] = ['client CPU/query: Bobbin pool, plain script', \sprintf('%.1f µs (%.2fx mysqli prepared, %.2fx query)', $m['ours'], $m['ours'] / $m['mysqliPrepared'], $m['ours'] / $m['mysqliQuery']), '<= 1.2x'];
    $rows[] = ['client CPU/INSERT: mysqli prepared (bind_param + execute + insert_id), one connection', \sprintf('%.1f µs', $m['mysqliInsert']), 'baseline'];
    $rows[] = ['client CPU/INSERT: Bobbin pool, plain script', \sprintf('%.1f µs (%.2fx mysqli prepared)', $m['oursInsert'], $m['oursInsert'] / $m['mysqliInsert']), '<= 1.2x'];
    $rows[] = ['client CPU/query: Bobbin pool, inside one fiber', \sprintf('%.1f µs (%.2fx mysqli prepared, %.2fx query)', $m['inFiber'], $m['inFiber'] / $m['mysqliPrepared'], $m['inFiber'] / $m['mysqliQuery']), '<= 1.5x'];
    $rows[] = ['client CPU/query: the same, the loop watching other streams (as in a server)', \sprintf('%.1f µs (%.2fx mysqli prepared, %.2fx query)', $m['busyLoop'], $m['busyLoop'] / $m['mysqliPrepared'], $m['busyLoop'] / $m['mysqliQuery']), '<= 1.5x'];
}

if (\in_array('qps', $only, true)) {
    $pool = new ConnectionPool(PoolConfig::fromUrl($url, maxSize: 50, acquireTimeout: 30.0));
    $pool->queryOne($statement, [1]);
    $done = 0;
    $before = $cpu();
    $started = \microtime(true);
    $until = $started + $seconds;
    $fibers = [];
    for ($f = 0; $f < 50; $f++) {
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
    // The ceiling: a C client (mariadb-slap, text protocol) with 50 connections, the same statement.
    $total = (int) \round($ourQps * $seconds);
    $slap = (string) \shell_exec(\sprintf(
        'mariadb-slap --no-defaults --socket=%s -u bobbin -pbobbin --create-schema=bobbin --concurrency=50 --iterations=1 --number-of-queries=%d --query=%s 2>&1',
        \escapeshellarg($socket),
        $total,
        \escapeshellarg("SELECT id, name, price, active FROM $table WHERE id = 500"),
    ));
    \preg_match('/Average number of seconds to run all queries: ([\d.]+)/', $slap, $mm);
    $slapQps = isset($mm[1]) && (float) $mm[1] > 0 ? $total / (float) $mm[1] : 0.0;
    $rows[] = ['queries/s, 50 fibers, pool max 50, prepared SELECT by id', \sprintf('%.0f q/s (%.1f µs client CPU/query)', $ourQps, $ourCpu), ''];
    $rows[] = ['queries/s, mariadb-slap --concurrency=50, same SELECT', $slapQps > 0 ? \sprintf('%.0f q/s', $slapQps) : 'failed: ' . \trim($slap), ''];
    $rows[] = ['ratio', $slapQps > 0 ? \sprintf('%.2fx', $ourQps / $slapQps) : '-', '>= 0.9x'];
}

$setup->query("DROP TABLE IF EXISTS $table");
$setup->query("DROP TABLE IF EXISTS {$table}_log");
echo "| measurement | result | target |\n|---|---|---|\n";
foreach ($rows as [$what, $result, $target]) {
    echo "| $what | $result | $target |\n";
}
