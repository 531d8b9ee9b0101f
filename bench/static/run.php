<?php

declare(strict_types=1);

/*
 * php bench/static/run.php [--rounds=3] [--duration=4] [--server-cpu=0] [--load-cpu=1] [--connections=50]
 *
 * Static files: requests/s and server CPU per request for a 1 KiB and a 1 MiB file, Bobbin
 * (`bin/bobbin serve examples/hello.php --single-process --static=DIR`, this checkout: one
 * process) beside nginx (one process: `master_process off`, `sendfile on`, `tcp_nopush on`,
 * access log off) serving the same folder. Each server is pinned to --server-cpu, wrk (`-t2`,
 * keep-alive) to --load-cpu. Rounds interleave the servers; the table gives medians, and the
 * ratio column the median of the per-round ratios Bobbin/nginx (each round measures both side
 * by side, so the machine's noise cancels out). Run it under the machine-wide lock:
 *
 *     flock /tmp/bobbin-bench.lock php bench/static/run.php
 */

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Server\ForegroundNginx;
use Bobbin\Bench\Shell;
use Bobbin\Bench\Summary;

require_once \dirname(__DIR__) . '/lib/autoload.php';

$options = ['rounds' => 3, 'duration' => 4, 'server-cpu' => 0, 'load-cpu' => 1, 'connections' => 50];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--(rounds|duration|server-cpu|load-cpu|connections)=(\d+)$/', $argument, $m) !== 1) {
        \fwrite(\STDERR, "Usage: php bench/static/run.php [--rounds=3] [--duration=4] [--server-cpu=0] [--load-cpu=1] [--connections=50]\n");
        exit(2);
    }
    $options[$m[1]] = (int) $m[2];
}
\ignore_user_abort(true);
$root = \dirname(__DIR__, 2);
$work = "$root/var/bench/static";
$files = ['1 KiB' => '1k.bin', '1 MiB' => '1m.bin'];
@\mkdir("$work/www", 0777, true);
\file_put_contents("$work/www/1k.bin", \random_bytes(1024));
\file_put_contents("$work/www/1m.bin", \random_bytes(1048576));

$servers = [
    'bobbin' => static fn (int $port): array => [\PHP_BINARY, "$root/bin/bobbin", 'serve', "$root/examples/hello.php", '--single-process',
        "--listen=127.0.0.1:$port", '--log-level=warning', "--static=$work/www"],
    'nginx' => static fn (int $port): array => ForegroundNginx::command($work, "nginx-$port", $port, <<<HTTP
            sendfile on;
            tcp_nopush on;
            tcp_nodelay on;
            keepalive_requests 100000;
            types { application/octet-stream bin; }
            server { listen 127.0.0.1:$port; root $work/www; }
        HTTP),
];
$samples = [];
for ($round = 1; $round <= $options['rounds']; $round++) {
    foreach ($servers as $name => $command) {
        $port = Shell::freePort();
        $process = \proc_open(['taskset', '-c', (string) $options['server-cpu'], ...$command($port)], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "$work/$name.log", 'a']], $pipes);
        if (!\is_resource($process)) {
            exit(1);
        }
        $pid = (int) \proc_get_status($process)['pid'];
        try {
            Shell::waitForPort($port);
            foreach ($files as $size => $file) {
                wrk($options['load-cpu'], $options['connections'], 1, $port, $file); // warm-up: opcache, JIT, page cache
                [$user0, $system0] = ProcessTree::ownTicks($pid);
                $requests = wrk($options['load-cpu'], $options['connections'], $options['duration'], $port, $file);
                [$user1, $system1] = ProcessTree::ownTicks($pid);
                $cpu = (($user1 - $user0) + ($system1 - $system0)) * 1e4 / \max(1, $requests); // µs (100 ticks a second)
                $samples[$size][$name]['rps'][] = $requests / $options['duration'];
                $samples[$size][$name]['cpu'][] = $cpu;
                \fprintf(\STDERR, "round %d %-6s %-6s %8.0f req/s  %7.2f µs CPU/req\n", $round, $name, $size, $requests / $options['duration'], $cpu);
            }
        } finally {
            \proc_terminate($process);
            \proc_close($process);
        }
    }
}
echo "| file | server | req/s | server CPU µs/req | Bobbin/nginx req/s (median of per-round ratios) | Bobbin/nginx CPU/req |\n|---|---|---|---|---|---|\n";
foreach ($samples as $size => $byServer) {
    $rpsRatios = \array_map(static fn (float $b, float $n): float => $b / $n, $byServer['bobbin']['rps'], $byServer['nginx']['rps']);
    $cpuRatios = \array_map(static fn (float $b, float $n): float => $b / \max(0.001, $n), $byServer['bobbin']['cpu'], $byServer['nginx']['cpu']);
    foreach ($byServer as $name => $s) {
        \printf("| %s | %s | %.0f | %.1f | %s | %s |\n", $size, $name, Summary::median($s['rps']), Summary::median($s['cpu']),
            $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($rpsRatios)) : '', $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($cpuRatios)) : '');
    }
}

/** @return int requests completed with a 200 */
function wrk(int $cpu, int $connections, int $seconds, int $port, string $file): int
{
    $output = (string) \shell_exec(\sprintf('taskset -c %d wrk -t2 -c%d -d%ds http://127.0.0.1:%d/%s 2>&1', $cpu, $connections, $seconds, $port, $file));
    if (\preg_match('/(\d+) requests in/', $output, $m) !== 1 || \str_contains($output, 'Non-2xx') || \str_contains($output, 'Socket errors')) {
        throw new \RuntimeException("wrk said: $output");
    }

    return (int) $m[1];
}

