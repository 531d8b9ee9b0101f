<?php

declare(strict_types=1);

/*
 * GET/SET throughput of Bobbin's Redis client against redis-benchmark (C, the same commands and
 * number of clients, pipelining off and on) and predis (blocking, one connection), side by side
 * in one run, rounds interleaved; client CPU per command from getrusage.
 *
 *   flock /tmp/bobbin-bench.lock php bench/redis/run.php [--ops=200000] [--clients=100] [--rounds=3]
 *
 * Uses the checkout's embedded Redis (scripts/redis start) over its unix socket; pins this
 * process and redis-benchmark to CPU 0 and redis-server to CPU 1. predis comes from
 * bench/redis/composer.json (installed here on first run into var/bench-redis-vendor).
 * It relaunches itself once with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Redis\Client;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

if (\getenv('BOBBIN_BENCH_RELAUNCHED') === false && \function_exists('pcntl_exec') && !\filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    \pcntl_exec(\PHP_BINARY, [...$settings, __FILE__, ...\array_slice($argv, 1)], [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}

$options = \getopt('', ['ops::', 'clients::', 'rounds::']);
$ops = (int) ($options['ops'] ?? 200_000);
$clients = (int) ($options['clients'] ?? 100);
$rounds = \max(1, (int) ($options['rounds'] ?? 3));
$root = \dirname(__DIR__, 2);

\exec(\escapeshellarg("$root/scripts/redis") . ' start 2>&1', $out, $status);
if ($status !== 0) {
    \fwrite(\STDERR, \implode("\n", $out) . "\n");
    exit(1);
}
$url = \trim((string) \shell_exec(\escapeshellarg("$root/scripts/redis") . ' url'));
\parse_str((string) \parse_url($url, \PHP_URL_QUERY), $query);
$socket = (string) $query['unix_socket'];
if (!\is_file("$root/var/bench-redis-vendor/autoload.php")) {
    \passthru('cd ' . \escapeshellarg(__DIR__) . ' && composer install --no-interaction --no-progress --quiet');
}
require "$root/var/bench-redis-vendor/autoload.php";

\exec('taskset -p -c 0 ' . \getmypid() . ' >/dev/null 2>&1');
\exec('taskset -a -p -c 1 ' . (int) \file_get_contents("$root/var/redis/redis.pid") . ' >/dev/null 2>&1');

/** @return array{float, float} seconds of wall time and of this process's (or its children's) CPU */
$measure = static function (Closure $work, bool $children = false): array {
    $usage = static function () use ($children): float {
        $u = \getrusage($children ? 1 : 0);

        return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
    };
    $cpu = $usage();
    $started = \hrtime(true);
    $work();

    return [(\hrtime(true) - $started) / 1e9, $usage() - $cpu];
};

$bobbin = static function () use ($url, $ops, $clients, $measure): array {
    $redis = new Client($url);
    $redis->ping();
    $perFiber = \intdiv($ops, $clients);
    [$wall, $cpu] = $measure(static function () use ($redis, $clients, $perFiber): void {
        $tasks = [];
        for ($c = 0; $c < $clients; $c++) {
            $tasks[] = Async::run(static function () use ($redis, $c, $perFiber): void {
                for ($i = 0; $i < $perFiber; $i += 2) {
                    $key = 'bench:' . (($c * 31 + $i) % 1000);
                    $redis->set($key, 'xxx');
                    $redis->get($key);
                }
            });
        }
        Future::awaitAll($tasks);
    });
    $redis->close();

    return [$perFiber * $clients / $wall, $cpu / ($perFiber * $clients) * 1e6];
};

$redisBenchmark = static function (int $pipeline) use ($socket, $ops, $clients, $measure): array {
    $line = \sprintf(
        'taskset -c 0 redis-benchmark -s %s --user bobbin -a bobbin -c %d -n %d -P %d -r 1000 -d 3 -t set,get --csv 2>/dev/null',
        \escapeshellarg($socket),
        $clients,
        $ops / 2,
        $pipeline,
    );
    $output = [];
    [$wall, $cpu] = $measure(static function () use ($line, &$output): void {
        \exec($line, $output);
    }, true);
    $rps = [];
    foreach ($output as $row) {
        $fields = \str_getcsv($row);
        if (\in_array($fields[0], ['SET', 'GET'], true)) {
            $rps[$fields[0]] = (float) $fields[1];
        }
    }
    if (\count($rps) !== 2) {
        throw new RuntimeException('redis-benchmark said: ' . \implode("\n", $output));
    }

    // Both halves run one after the other: the rate of the whole is the harmonic mean.
    return [2 / (1 / $rps['SET'] + 1 / $rps['GET']), $cpu / $ops * 1e6];
};

$predis = static function () use ($socket, $ops, $measure): array {
    $redis = new Predis\Client(['scheme' => 'unix', 'path' => $socket, 'username' => 'bobbin', 'password' => 'bobbin']);
    $redis->ping();
    $n = \intdiv($ops, 4); // a blocking loop is slower: fewer commands, the same kind
    [$wall, $cpu] = $measure(static function () use ($redis, $n): void {
        for ($i = 0; $i < $n; $i += 2) {
            $key = 'bench:' . ($i % 1000);
            $redis->set($key, 'xxx');
            $redis->get($key);
        }
    });
    $redis->disconnect();

    return [$n / $wall, $cpu / $n * 1e6];
};

$results = [];
for ($round = 1; $round <= $rounds; $round++) {
    $results['bobbin'][] = $bobbin();
    $results['rb1'][] = $redisBenchmark(1);
    $results['rb16'][] = $redisBenchmark(16);
    $results['predis'][] = $predis();
    \fprintf(\STDERR, "round %d: bobbin %.0f/s, redis-benchmark %.0f/s (-P 16: %.0f/s), predis %.0f/s\n", $round, \end($results['bobbin'])[0], \end($results['rb1'])[0], \end($results['rb16'])[0], \end($results['predis'])[0]);
}

$median = static function (array $rows, int $column): float {
    $values = \array_column($rows, $column);
    \sort($values);

    return $values[\intdiv(\count($values), 2)];
};
$b = $median($results['bobbin'], 0);
$rows = [
    ['Bobbin `Client`, ' . $clients . ' fibers on one pipelined connection', $b, $median($results['bobbin'], 1), ''],
    ['`redis-benchmark -c ' . $clients . ' -P 1` (C, pipelining off)', $median($results['rb1'], 0), $median($results['rb1'], 1), \sprintf('%.2fx', $b / $median($results['rb1'], 0))],
    ['`redis-benchmark -c ' . $clients . ' -P 16` (C, pipelining on)', $median($results['rb16'], 0), $median($results['rb16'], 1), \sprintf('%.2fx', $b / $median($results['rb16'], 0))],
    ['predis 3, one blocking connection, a loop', $median($results['predis'], 0), $median($results['predis'], 1), \sprintf('%.2fx', $b / $median($results['predis'], 0))],
];
echo "| client (GET/SET alternating, 3-byte values, unix socket) | ops/s | client CPU per command | Bobbin's throughput ÷ this |\n|---|---|---|---|\n";
foreach ($rows as [$name, $rate, $cpu, $ratio]) {
    \printf("| %s | %s | %.2f µs | %s |\n", $name, \number_format($rate), $cpu, $ratio);
}
\printf("\nmedians of %d interleaved rounds, %d commands each (predis: %d)\n", $rounds, $ops, \intdiv($ops, 4));
