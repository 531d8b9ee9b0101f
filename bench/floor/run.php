<?php

declare(strict_types=1);

/*
 * php bench/floor/run.php [--crud] [--rounds=5] [--duration=5] [--server-cpu=0] [--load-cpu=1]
 *
 * Server CPU per plaintext keep-alive request, user and kernel apart, of Bobbin
 * (`bin/bobbin serve examples/hello.php --single-process`, this checkout) beside the pure-PHP
 * floor (bench/floor/server.php), each pinned to one core with the load generator on the other,
 * under `wrk -t50 -c50` (a thread per connection: requests spread out) and `wrk -t2 -c50`
 * (batched). With --crud: the aircraft CRUD cycle instead (`apps/aircraft/server.php`, pool 32,
 * beside bench/floor/crud-server.php), PostgreSQL over TCP loopback (this checkout's `scripts/pg
 * url --tcp`, started if needed), `wrk -t50 -c50 -s bench/wrk/crud.lua`, CPU per cycle.
 * Rounds interleave the servers; medians are printed as a Markdown table. Run it
 * under the machine-wide lock: flock /tmp/bobbin-bench.lock php bench/floor/run.php
 */

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Shell;
use Bobbin\Bench\Summary;

require_once \dirname(__DIR__) . '/lib/autoload.php';

$options = ['rounds' => 5, 'duration' => 5, 'server-cpu' => 0, 'load-cpu' => 1];
$crud = false;
foreach (\array_slice($argv, 1) as $argument) {
    if ($argument === '--crud') {
        $crud = true;
        continue;
    }
    if (\preg_match('/^--(rounds|duration|server-cpu|load-cpu)=(\d+)$/', $argument, $m) !== 1) {
        \fwrite(\STDERR, "Usage: php bench/floor/run.php [--crud] [--rounds=5] [--duration=5] [--server-cpu=0] [--load-cpu=1]\n");
        exit(2);
    }
    $options[$m[1]] = (int) $m[2];
}
$root = \dirname(__DIR__, 2);
$jit = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M'];
$environment = null;
if ($crud) {
    \exec(\escapeshellarg("$root/scripts/pg") . ' start >/dev/null 2>&1');
    $environment = [...\getenv(), 'DATABASE_URL' => \trim((string) \shell_exec(\escapeshellarg("$root/scripts/pg") . ' url --tcp')), 'DATABASE_POOL_MAX' => '32'];
    $servers = [
        'bobbin' => static fn (int $port): array => [\PHP_BINARY, "$root/bin/bobbin", 'serve', "$root/apps/aircraft/server.php", '--single-process', "--listen=127.0.0.1:$port", '--log-level=warning'],
        'floor' => static fn (int $port): array => [\PHP_BINARY, ...$jit, __DIR__ . '/crud-server.php', (string) $port],
    ];
    $loads = ['wrk -t50 -c50 crud.lua' => ['-t50', '-c50', '-s', "$root/bench/wrk/crud.lua"]];
} else {
$servers = [
    'bobbin' => static fn (int $port): array => [\PHP_BINARY, "$root/bin/bobbin", 'serve', "$root/examples/hello.php", '--single-process', "--listen=127.0.0.1:$port", '--log-level=warning'],
    // The same opcache and JIT settings Bobbin relaunches itself with.
    'floor' => static fn (int $port): array => [\PHP_BINARY, ...$jit, __DIR__ . '/server.php', (string) $port],
];
$loads = ['wrk -t50 -c50' => ['-t50', '-c50'], 'wrk -t2 -c50' => ['-t2', '-c50']];
}
$unit = $crud ? 'cycle' : 'req';
$samples = [];
for ($round = 1; $round <= $options['rounds']; $round++) {
    foreach ($servers as $name => $command) {
        $port = Shell::freePort();
        $process = \proc_open(['taskset', '-c', (string) $options['server-cpu'], ...$command($port)], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, null, $environment);
        if (!\is_resource($process)) {
            exit(1);
        }
        $pid = (int) \proc_get_status($process)['pid'];
        try {
            Shell::waitForPort($port);
            wrk($options['load-cpu'], \reset($loads), 2, $port); // warm-up: opcache, JIT
            foreach ($loads as $load => $flags) {
                [$user0, $system0] = ProcessTree::ownTicks($pid);
                $requests = wrk($options['load-cpu'], $flags, $options['duration'], $port);
                [$user1, $system1] = ProcessTree::ownTicks($pid);
                $tick = 1e6 / 100; // µs per clock tick (USER_HZ)
                $samples[$load][$name]['user'][] = ($user1 - $user0) * $tick / \max(1, $requests);
                $samples[$load][$name]['kernel'][] = ($system1 - $system0) * $tick / \max(1, $requests);
                $samples[$load][$name]['req/s'][] = $requests / $options['duration'];
                \fprintf(\STDERR, "round %d %-7s %-14s %7.0f $unit/s  user %5.2f µs  kernel %5.2f µs\n", $round, $name, $load, $requests / $options['duration'], \end($samples[$load][$name]['user']), \end($samples[$load][$name]['kernel']));
            }
        } finally {
            \proc_terminate($process);
            \proc_close($process);
        }
    }
}
echo "| load | server | $unit/s | user µs/$unit | kernel µs/$unit | total µs/$unit |\n|---|---|---|---|---|---|\n";
foreach ($samples as $load => $byServer) {
    foreach ($byServer as $name => $s) {
        $total = \array_map(static fn (float $u, float $k): float => $u + $k, $s['user'], $s['kernel']);
        \printf("| %s | %s | %.0f | %.2f | %.2f | %.2f |\n", $load, $name, Summary::median($s['req/s']), Summary::median($s['user']), Summary::median($s['kernel']), Summary::median($total));
    }
}

/** @param list<string> $flags @return int requests completed, or CRUD cycles (crud.lua's RESULT line) */
function wrk(int $cpu, array $flags, int $seconds, int $port): int
{
    $output = (string) \shell_exec(\sprintf('taskset -c %d wrk %s -d%ds http://127.0.0.1:%d/ -- %s 2>&1', $cpu, \implode(' ', \array_map('escapeshellarg', $flags)), $seconds, $port, \bin2hex(\random_bytes(6))));
    if (\preg_match('/RESULT (\{.*\})/', $output, $m) === 1) {
        $result = \json_decode($m[1], true);
        if (($result['failed_cycles'] ?? 1) !== 0) {
            throw new \RuntimeException("failed CRUD cycles: $output");
        }

        return (int) $result['cycles'];
    }
    if (\preg_match('/(\d+) requests in/', $output, $m) !== 1) {
        throw new \RuntimeException("wrk said: $output");
    }

    return (int) $m[1];
}

