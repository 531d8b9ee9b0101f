<?php

declare(strict_types=1);

/*
 * Benchmarks of the Tarantool client and the MessagePack codec (issue 24), against the
 * checkout's embedded Tarantool (scripts/tarantool: wal_mode = 'none', readahead 1 MiB):
 *
 *   flock /tmp/bobbin-bench.lock php bench/tarantool/run.php [--ops=10000] [--only=codec,client]
 *       [--requests=select,insert,…] [--fibers=1,5,10,25,50,100,200] [--max-iterations=20]
 *
 * client: for each request type, the memtx space `bench` recreated and filled with 10,000
 *   tuples {id, 'tuple_' .. id} before every iteration (not timed); an iteration is --ops
 *   requests by random key. Iterations repeat until five in a row are within 3 % of each other
 *   (at most --max-iterations); the mean of those five is reported. Variants: synchronous (one
 *   request at a time on one connection, a plain script), N fibers on one connection in one
 *   process, two worker processes x 25 fibers (each its own connection, --ops/2 requests each,
 *   timed from a common start). The synchronous client's own CPU per request (user + sys of this
 *   process) beside it.
 * codec: encode and decode of a select answer and of a nested map, ours vs msgpack_pack /
 *   msgpack_unpack of the php-msgpack extension (skipped when it is not loaded).
 *
 * Nothing is pinned: Tarantool's two threads (tx, iproto) and the client share the 2 vCPUs.
 * It relaunches itself once with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\PreparedStatement;
use Bobbin\Tarantool\Update;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

if (\getenv('BOBBIN_BENCH_RELAUNCHED') === false && \function_exists('pcntl_exec') && !\filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    \pcntl_exec(\PHP_BINARY, [...$settings, __FILE__, ...\array_slice($argv, 1)], [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}
\ignore_user_abort(true);

$options = \getopt('', ['ops::', 'only::', 'requests::', 'fibers::', 'max-iterations::', 'worker::']);
$ops = (int) ($options['ops'] ?? 10000);
$only = \explode(',', (string) ($options['only'] ?? 'codec,client'));
$requestTypes = \explode(',', (string) ($options['requests'] ?? 'select,insert,replace,update,upsert,delete,call,eval,sql_select,sql_insert'));
$fiberCounts = \array_map('intval', \explode(',', (string) ($options['fibers'] ?? '1,5,10,25,50,100,200')));
$maxIterations = (int) ($options['max-iterations'] ?? 20);
$root = \dirname(__DIR__, 2);
$script = \escapeshellarg("$root/scripts/tarantool");
$url = (string) \getenv('BOBBIN_BENCH_TARANTOOL_URL');
if ($url === '') {
    $url = \trim((string) \shell_exec("$script start >/dev/null 2>&1; $script url"));
    \putenv("BOBBIN_BENCH_TARANTOOL_URL=$url"); // for the worker processes
}

$cpu = static function (): float {
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
};

/** Mean of the last five of $samples when they are within 3 % of each other, else null. */
$settled = static function (array $samples): ?float {
    if (\count($samples) < 5) {
        return null;
    }
    $last = \array_slice($samples, -5);
    $mean = \array_sum($last) / 5;

    return (\max($last) - \min($last)) / $mean <= 0.03 ? $mean : null;
};

/**
 * One request of $type: by random key, except insert (fresh ids above 10,000) and delete
 * ($n from a shuffled 1..--ops, so every delete hits).
 *
 * @return Closure(Connection, int): void
 */
$requestOf = static function (string $type, array $prepared): Closure {
    return match ($type) {
        'select' => static fn (Connection $c, int $n) => $c->select('bench', \mt_rand(1, 10000)),
        'insert' => static fn (Connection $c, int $n) => $c->insert('bench', [10000 + $n, 'tuple_' . (10000 + $n)]),
        'replace' => static fn (Connection $c, int $n) => $c->replace('bench', [\mt_rand(1, 10000), 'replaced']),
        'update' => static fn (Connection $c, int $n) => $c->update('bench', \mt_rand(1, 10000), [Update::assign(1, 'updated')]),
        'upsert' => static fn (Connection $c, int $n) => $c->upsert('bench', [\mt_rand(1, 10000), 'new'], [Update::assign(1, 'upserted')]),
        'delete' => static fn (Connection $c, int $n) => $c->delete('bench', $n),
        'call' => static fn (Connection $c, int $n) => $c->call('bench_get', [\mt_rand(1, 10000)]),
        'eval' => static fn (Connection $c, int $n) => $c->eval('return box.space.bench:get(...)', [\mt_rand(1, 10000)]),
        'sql_select' => static fn (Connection $c, int $n) => $c->execute($prepared['select'], [\mt_rand(1, 10000)]),
        'sql_insert' => static fn (Connection $c, int $n) => $c->execute($prepared['insert'], [10000 + $n, 'sql_' . $n]),
        default => throw new \ValueError("unknown request type $type"),
    };
};

/** The keys of one iteration: 1..$ops shuffled for delete (unique, all present), else 1..$ops. */
$keysOf = static function (string $type, int $ops): array {
    $keys = \range(1, $ops);
    if ($type === 'delete') {
        \shuffle($keys);
    }

    return $keys;
};

/**
 * Runs one iteration of $ops requests over one connection with $fibers fibers (0: plain
 * script, one at a time) and returns requests/s.
 */
$iteration = static function (Connection $c, Closure $request, array $keys, int $fibers): float {
    $started = \microtime(true);
    if ($fibers === 0) {
        foreach ($keys as $n) {
            $request($c, $n);
        }
    } else {
        $chunks = \array_chunk($keys, (int) \ceil(\count($keys) / $fibers));
        Future::awaitAll(\array_map(static fn (array $chunk) => Async::run(static function () use ($c, $request, $chunk): void {
            foreach ($chunk as $n) {
                $request($c, $n);
            }
        }), $chunks));
    }

    return \count($keys) / (\microtime(true) - $started);
};

/**
 * Two worker processes (this script with --worker=TYPE, started afresh rather than forked: a
 * child of fork() cannot take a loop of its own while its parent's loop fiber is alive) x 25
 * fibers, --ops/2 each, timed from a common start once both are connected: requests/s of both.
 */
$twoProcesses = static function (string $type, array $keys): float {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    $workers = [];
    foreach (\array_chunk($keys, (int) \ceil(\count($keys) / 2)) as $half) {
        $process = \proc_open([\PHP_BINARY, ...$settings, __FILE__, "--worker=$type"], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $pipes, null, [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
        \assert(\is_resource($process));
        \fwrite($pipes[0], \implode(',', $half) . "\n");
        $workers[] = [$process, $pipes];
    }
    $expect = static function (array $pipes, string $what): void {
        if (\fread($pipes[1], 1) !== $what) {
            throw new \RuntimeException('a benchmark worker process ended early');
        }
    };
    foreach ($workers as [, $pipes]) {
        $expect($pipes, 'r');
    }
    $started = \microtime(true);
    foreach ($workers as [, $pipes]) {
        \fwrite($pipes[0], 'g');
    }
    foreach ($workers as [, $pipes]) {
        $expect($pipes, 'd');
    }
    $elapsed = \microtime(true) - $started;
    foreach ($workers as [$process, $pipes]) {
        \fclose($pipes[0]);
        \fclose($pipes[1]);
        \proc_close($process);
    }

    return \count($keys) / $elapsed;
};

$prepare = static fn (Connection $c, string $type): array => \str_starts_with($type, 'sql_') ? [
    'select' => $c->prepare('SELECT "id", "value" FROM "bench" WHERE "id" = ?'),
    'insert' => $c->prepare('INSERT INTO "bench" VALUES (?, ?)'),
] : [];

if (isset($options['worker'])) { // one of $twoProcesses's workers: keys on stdin, r / g / d
    $type = (string) $options['worker'];
    $keys = \array_map('intval', \explode(',', \trim((string) \fgets(\STDIN))));
    $c = Connection::connect($url);
    $request = $requestOf($type, $prepare($c, $type));
    echo 'r';
    \fflush(\STDOUT);
    \fread(\STDIN, 1);
    $iteration($c, $request, $keys, 25);
    echo 'd';
    \fflush(\STDOUT);
    $c->close();
    exit(0);
}

$rows = [];
if (\in_array('client', $only, true)) {
    $c = Connection::connect($url);
    $variants = ['sync' => 0];
    foreach ($fiberCounts as $n) {
        $variants["$n fibers"] = $n;
    }
    $variants['2 processes x 25 fibers'] = -1;
    foreach ($requestTypes as $type) {
        // Interleaved: each round runs one iteration of every variant not yet settled, so a
        // change in the machine's load falls on all of them alike.
        $samples = \array_fill_keys(\array_keys($variants), []);
        $cpuPerRequest = \array_fill_keys(\array_keys($variants), []);
        $means = [];
        for ($i = 0; $i < $maxIterations && \count($means) < \count($variants); $i++) {
            foreach ($variants as $label => $fibers) {
                if (isset($means[$label])) {
                    continue;
                }
                $c->call('bench_reset', [10000]);
                // Recreating the space expires prepared statements: prepared again, untimed.
                $request = $requestOf($type, $prepare($c, $type));
                $keys = $keysOf($type, $ops);
                if ($fibers === -1) {
                    $samples[$label][] = $twoProcesses($type, $keys);
                } else {
                    $before = $cpu();
                    $samples[$label][] = $iteration($c, $request, $keys, $fibers);
                    $cpuPerRequest[$label][] = ($cpu() - $before) / $ops * 1e6;
                }
                $mean = $settled($samples[$label]);
                if ($mean !== null) {
                    $means[$label] = $mean;
                }
            }
        }
        $results = [];
        foreach ($variants as $label => $fibers) {
            $last = \array_slice($samples[$label], -5);
            $cpuLast = \array_slice($cpuPerRequest[$label], -5);
            $results[$label] = [$means[$label] ?? \array_sum($last) / \count($last), isset($means[$label]), \count($samples[$label]), $cpuLast === [] ? null : \array_sum($cpuLast) / \count($cpuLast)];
            \fprintf(\STDERR, "%-10s %-24s %8.0f req/s%s (%d iterations)\n", $type, $label, $results[$label][0], isset($means[$label]) ? '' : ' NOT SETTLED', \count($samples[$label]));
        }
        $rows[$type] = $results;
    }
    $c->close();

    $format = static fn (array $r): string => \sprintf('%.0f%s', $r[0], $r[1] ? '' : '*');
    echo "\n| request | sync req/s (client CPU/req) | 25 fibers | best of 1–200 fibers (N) | 2 processes x 25 | 25 fibers / sync | 2 x 25 / sync |\n|---|---|---|---|---|---|---|\n";
    foreach ($rows as $type => $results) {
        $sync = $results['sync'];
        $best = null;
        foreach ($results as $label => $r) {
            if ($variants[$label] > 0 && ($best === null || $r[0] > $best[1][0])) {
                $best = [$label, $r];
            }
        }
        $f25 = $results['25 fibers'] ?? null;
        $two = $results['2 processes x 25 fibers'];
        echo \sprintf(
            "| %s | %s (%.1f µs) | %s | %s (%s) | %s | %s | %.2fx |\n",
            $type,
            $format($sync),
            $sync[3] ?? 0.0,
            $f25 === null ? '-' : $format($f25),
            $best === null ? '-' : $format($best[1]),
            $best === null ? '-' : \str_replace(' fibers', '', $best[0]),
            $format($two),
            $f25 === null ? '-' : \sprintf('%.2fx', $f25[0] / $sync[0]),
            $two[0] / $sync[0],
        );
    }
    echo "\n(* : five iterations in a row never came within 3 %; the mean of the last five is shown)\n";
    echo "\nEvery fiber count, requests/s:\n\n| request | " . \implode(' | ', \array_keys(\reset($rows))) . " |\n|---|" . \str_repeat('---|', \count(\reset($rows))) . "\n";
    foreach ($rows as $type => $results) {
        echo "| $type | " . \implode(' | ', \array_map($format, $results)) . " |\n";
    }
}

if (\in_array('codec', $only, true)) {
    $select = [];
    for ($id = 1; $id <= 100; $id++) {
        $select[] = [$id, 'tuple_' . $id];
    }
    $document = ['id' => 12345, 'name' => 'a name', 'price' => 12.5, 'tags' => ['a', 'b', 'c'], 'active' => true, 'nested' => ['x' => -7, 'y' => null, 'big' => 5000000000]];
    $ours = [new Encoder(), new Decoder()];
    $measure = static function (Closure $work, int $times): float {
        $started = \hrtime(true);
        for ($i = 0; $i < $times; $i++) {
            $work();
        }

        return (\hrtime(true) - $started) / $times / 1e3;
    };
    $hasExtension = \function_exists('msgpack_pack');
    echo "\n| value | encode: ours | encode: php-msgpack | decode: ours | decode: php-msgpack |\n|---|---|---|---|---|\n";
    foreach (['select answer, 100 tuples {id, "tuple_" .. id}' => [$select, 2000], 'a nested map of 6 keys' => [$document, 50000]] as $label => [$value, $times]) {
        $bytes = $ours[0]->encode($value);
        $samples = ['oe' => [], 'ee' => [], 'od' => [], 'ed' => []];
        for ($round = 0; $round < 5; $round++) { // interleaved
            $samples['oe'][] = $measure(static fn () => $ours[0]->encode($value), $times);
            $samples['od'][] = $measure(static fn () => $ours[1]->decode($bytes), $times);
            if ($hasExtension) {
                $samples['ee'][] = $measure(static fn () => \msgpack_pack($value), $times);
                $samples['ed'][] = $measure(static fn () => \msgpack_unpack($bytes), $times);
            }
        }
        $median = static function (array $v): ?float {
            if ($v === []) {
                return null;
            }
            \sort($v);

            return $v[2];
        };
        $m = \array_map($median, $samples);
        $cell = static fn (?float $us, ?float $ours = null): string => $us === null ? 'not installed' : \sprintf('%.2f µs', $us) . ($ours === null ? '' : \sprintf(' (ours takes %.1fx as long)', $ours / $us));
        if ($hasExtension && \msgpack_pack($value) !== $bytes) {
            $label .= ' (the extension encodes other bytes)';
        }
        echo "| $label | {$cell($m['oe'])} | {$cell($m['ee'], $m['oe'])} | {$cell($m['od'])} | {$cell($m['ed'], $m['od'])} |\n";
    }
}
