<?php

declare(strict_types=1);

/*
 * PSS of a hello server by mapping class (issue 41; docs/HTTP.md "Memory of a hello server, issue 41"):
 * each server is started, read 2.5 s later (idle), then read every 0.1 s while
 * `ab -k -c1000 -n 20000` runs under flock /tmp/bobbin-bench.lock (the largest total is its peak).
 * Rounds are interleaved; the table has the medians, in MiB.
 *
 *   php bench/peers/memory.php [--rounds=3] [--bobbin=DIR[@OPTION,…]]... [--swoole-so=PATH] [--no-swoole] [-- SERVE_OPTION...]
 *
 * --bobbin: what to measure: a checkout (DIR/bin/bobbin, with its own vendor/) or a Composer
 * install of Bobbin (DIR/vendor/bin/bobbin serving DIR/vendor/bobbin/bobbin/examples/hello.php);
 * default var/peers/bobbin, the install `bench/run peers` measures (bench/peers/build bobbin);
 * give it more than once to compare; DIR@OPTION,OPTION… adds serve options to that one alone
 * (e.g. --bobbin=var/peers/bobbin@--job-workers=0). Swoole: --swoole-so, default var/peers/swoole/swoole.so (bench/peers/build swoole). Options after -- go to
 * every `bin/bobbin serve` (e.g. --job-workers=0).
 */

$root = \dirname(__DIR__, 2);
$rounds = 3;
$checkouts = [];
$swoole = true;
$swooleSo = $root . '/var/peers/swoole/swoole.so';
$serveOptions = [];
$args = \array_slice($argv, 1);
while (($arg = \array_shift($args)) !== null) {
    if ($arg === '--') {
        $serveOptions = $args;
        break;
    }
    match (true) {
        \str_starts_with($arg, '--rounds=') => $rounds = \max(1, (int) \substr($arg, 9)),
        \str_starts_with($arg, '--bobbin=') => $checkouts[] = \substr($arg, 9),
        \str_starts_with($arg, '--swoole-so=') => $swooleSo = \substr($arg, 12),
        $arg === '--no-swoole' => $swoole = false,
        default => exit("unknown argument $arg\n"),
    };
}
if ($checkouts === []) {
    $checkouts = [$root . '/var/peers/bobbin'];
    if (!\is_file($checkouts[0] . '/vendor/bin/bobbin')) {
        exit("Bobbin's install for the peers is not built: run bench/peers/build bobbin (or give --bobbin=CHECKOUT)\n");
    }
}
$php = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit_buffer_size=64M', '-d', 'opcache.jit=tracing'];
$servers = [];
foreach ($checkouts as $given) {
    // DIR, or DIR@OPTION,OPTION… for serve options of this server alone (after those after --).
    [$checkout, $own] = \explode('@', $given, 2) + [1 => ''];
    $checkout = (string) \realpath($checkout);
    $own = $own === '' ? [] : \explode(',', $own);
    // A checkout runs its bin/bobbin; an install, Composer's vendor/bin/bobbin (its autoloader).
    [$bin, $app] = \is_file($checkout . '/bin/bobbin')
        ? [$checkout . '/bin/bobbin', $checkout . '/examples/hello.php']
        : [$checkout . '/vendor/bin/bobbin', $checkout . '/vendor/bobbin/bobbin/examples/hello.php'];
    \is_file($bin) || exit("--bobbin=$checkout: neither a checkout (bin/bobbin) nor an install (vendor/bin/bobbin)\n");
    $servers[$checkout . ($own === [] ? '' : ' ' . \implode(' ', $own))] = static fn (int $port): array => ['taskset', '-c', '0', \PHP_BINARY, $bin, 'serve', $app,
        '--listen=127.0.0.1:' . $port, '--workers=1', '--log-level=warning', '--single-process', ...$serveOptions, ...$own];
}
if ($swoole) {
    $servers['swoole'] = static fn (int $port): array => ['taskset', '-c', '0', \PHP_BINARY, ...$php, '-d', 'extension=' . $swooleSo,
        $root . '/bench/peers/swoole/hello.php', (string) $port];
}

/** @return array<string, int> kB of PSS by class, over $pid and its children */
function pssByClass(int $pid): array
{
    $children = \trim((string) @\file_get_contents("/proc/$pid/task/$pid/children"));
    $sums = ['total' => 0, 'shm' => 0, 'anon' => 0, 'heap' => 0, 'so' => 0, 'bin' => 0, 'other' => 0];
    foreach ([$pid, ...($children === '' ? [] : \array_map('intval', \explode(' ', $children)))] as $p) {
        $class = 'other';
        foreach (@\file("/proc/$p/smaps") ?: [] as $line) {
            if (\preg_match('/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/', $line, $m) === 1) {
                $name = \trim($m[1]);
                $class = match (true) {
                    $name === '' => 'anon',
                    $name === '[heap]' => 'heap',
                    \str_starts_with($name, '/dev/zero') => 'shm',
                    \str_contains($name, '.so') => 'so',
                    \str_contains($name, 'php') => 'bin',
                    default => 'other',
                };
            } elseif (\str_starts_with($line, 'Pss:')) {
                $kb = (int) \preg_replace('/\D/', '', $line);
                $sums[$class] += $kb;
                $sums['total'] += $kb;
            }
        }
    }

    return $sums;
}

$results = [];
for ($round = 0; $round < $rounds; $round++) {
    foreach ($servers as $name => $command) {
        $probe = \stream_socket_server('tcp://127.0.0.1:0') ?: exit("no free port\n");
        $port = (int) \substr((string) \stream_socket_get_name($probe, false), 10);
        \fclose($probe);
        $server = \proc_open($command($port), [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes) ?: exit("$name did not start\n");
        $pid = (int) \proc_get_status($server)['pid'];
        \usleep(2_500_000);
        $idle = pssByClass($pid);
        $ab = \proc_open(['flock', '/tmp/bobbin-bench.lock', 'ab', '-q', '-k', '-c1000', '-n', '20000', "http://127.0.0.1:$port/"], [1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $abPipes) ?: exit("ab did not start\n");
        $peak = $idle;
        while (\proc_get_status($ab)['running']) {
            $now = pssByClass($pid);
            $peak = $now['total'] > $peak['total'] ? $now : $peak;
            \usleep(100_000);
        }
        \preg_match('/Failed requests:\s+(\d+)/', (string) \stream_get_contents($abPipes[1]), $failed);
        \proc_close($ab);
        \proc_terminate($server);
        \proc_close($server);
        \fwrite(\STDERR, \sprintf("round %d %s: idle %d kB, peak %d kB, failed requests %s\n", $round, $name, $idle['total'], $peak['total'], $failed[1] ?? '?'));
        $results[$name]['idle'][] = $idle;
        $results[$name]['peak'][] = $peak;
    }
}
$median = static function (array $values): float {
    \sort($values);
    $n = \count($values);

    return $n % 2 === 1 ? $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2;
};
$classes = ['total', 'shm', 'anon', 'heap', 'so', 'bin'];
echo '| server | when | ' . \implode(' | ', $classes) . " |\n|---|---|" . \str_repeat('---|', \count($classes)) . "\n";
foreach ($results as $name => $when) {
    foreach ($when as $phase => $samples) {
        echo "| $name | $phase | " . \implode(' | ', \array_map(static fn (string $c): string => \sprintf('%.1f', $median(\array_column($samples, $c)) / 1024), $classes)) . " |\n";
    }
}
