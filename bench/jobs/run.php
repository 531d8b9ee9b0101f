<?php

declare(strict_types=1);

/*
 * bench/jobs/run.php — what job workers buy and what they cost (issue 22).
 *
 *   1. The point of them: one HTTP worker serves /health to 50 wrk connections while 4 more keep
 *      a CPU-heavy endpoint busy (the aircraft fleet chart, --chart=WxH). The heavy work runs in
 *      the job workers or inline in the HTTP worker, per request, in alternating rounds of the
 *      same run: p50/p99 of the light requests, and charts/s. Job workers at each --nice value.
 *   2. The round trip of an empty task from the HTTP worker: one at a time (µs per task) and 16
 *      at a time over the job workers (tasks/s); in-process beside it.
 *   3. Charts/s against the number of job workers (--workers-sweep), 16 tasks at a time.
 *
 *   php bench/jobs/run.php [--rounds=3] [--seconds=8] [--chart=600x338] [--job-workers=2]
 *       [--workers-sweep=1,2,3,4] [--nice=0,10] [--only=latency,roundtrip,sweep]
 *
 * Servers: bin/bobbin serve bench/jobs/app.php --workers=1 (measured as one serving process:
 * --single-process, whose job workers a JobMaster supervises) --job-bootstrap=bench/jobs/bootstrap.php.
 * Prints Markdown. Run it under the machine's benchmark lock:
 *   flock /tmp/bobbin-bench.lock php bench/jobs/run.php
 */

namespace Bobbin\Bench;

use Bobbin\Bench\Load\WrkResult;
use Bobbin\Bench\Server\BobbinServer;

require \dirname(__DIR__) . '/lib/autoload.php';
\ignore_user_abort(true);

$options = \getopt('', ['rounds:', 'seconds:', 'chart:', 'job-workers:', 'workers-sweep:', 'nice:', 'only:', 'help']);
if (isset($options['help'])) {
    $self = (string) \file_get_contents(__FILE__);
    echo \substr($self, \strpos($self, '/*') + 3, \strpos($self, '*/') - \strpos($self, '/*') - 3), "\n";
    exit(0);
}
$root = \dirname(__DIR__, 2);
$rounds = \max(1, (int) ($options['rounds'] ?? 3));
$seconds = \max(1, (int) ($options['seconds'] ?? 8));
[$width, $height] = \array_map('intval', \explode('x', (string) ($options['chart'] ?? '600x338')) + [1 => 338]);
$jobWorkers = \max(1, (int) ($options['job-workers'] ?? 2));
$sweep = \array_map('intval', \explode(',', (string) ($options['workers-sweep'] ?? '1,2,3,4')));
$only = \explode(',', (string) ($options['only'] ?? 'latency,roundtrip,sweep'));
$niceValues = \array_map('intval', \explode(',', (string) ($options['nice'] ?? '0,10')));
$chart = "/chart?width=$width&height=$height";

/** One serving process with $jobs job workers. */
$start = static function (int $jobs, int $nice = 0) use ($root): BobbinServer {
    return BobbinServer::start($root, "jobs-$jobs", 'bench/jobs/app.php', null, 1, [], '/health', [], [
        '--job-workers=' . $jobs, '--job-bootstrap=' . $root . '/bench/jobs/bootstrap.php', '--job-queue=64', '--job-nice=' . $nice,
    ]);
};
$get = static function (BobbinServer $server, string $path): array {
    $body = @\file_get_contents($server->baseUrl() . $path);
    $data = \is_string($body) ? \json_decode($body, true) : null;
    if (!\is_array($data)) {
        throw new \RuntimeException("GET $path failed: " . \var_export($body, true));
    }

    return $data;
};
$wrk = static function (string $url, int $connections, int $seconds) use ($root): RunningCommand {
    return Shell::start(['wrk', '-t1', '-c' . $connections, '-d' . $seconds . 's', '--latency', '-s', $root . '/bench/wrk/plain.lua', $url]);
};
$median = static function (array $values): float {
    \sort($values);
    $n = \count($values);

    return $n === 0 ? \NAN : ($n % 2 === 1 ? (float) $values[intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2);
};

echo '## Measured', "\n\n";
echo \sprintf(
    "Run of %s, PHP %s, %d vCPUs (nproc), %d round(s) each, medians; `flock /tmp/bobbin-bench.lock php bench/jobs/run.php%s`.\n\n",
    \date('Y-m-d H:i'),
    \PHP_VERSION,
    (int) \trim((string) \shell_exec('nproc')),
    $rounds,
    \count($argv) > 1 ? ' ' . \implode(' ', \array_slice($argv, 1)) : '',
);

if (\in_array('latency', $only, true)) {
    $servers = [];
    foreach ($niceValues as $nice) {
        $servers[$nice] = $start($jobWorkers, $nice);
    }
    try {
        $variants = ['inline' => [$servers[$niceValues[0]], 'inline']];
        foreach ($niceValues as $nice) {
            $variants["jobs, --job-nice=$nice"] = [$servers[$nice], 'jobs'];
        }
        foreach ($servers as $server) {
            $get($server, '/roundtrip?n=200'); // warm: opcache, JIT, the pool's first connections
        }
        $rows = [];
        for ($round = 0; $round < $rounds; $round++) {
            $order = \array_keys($variants);
            if ($round % 2 === 1) {
                $order = \array_reverse($order);
            }
            foreach ($order as $variant) {
                [$server, $mode] = $variants[$variant];
                $heavy = $wrk($server->baseUrl() . "$chart&mode=$mode", 4, $seconds);
                \usleep(300_000); // the heavy load first: every light request meets it
                $light = $wrk($server->baseUrl() . '/health', 50, $seconds - 1);
                $lightResult = WrkResult::parse($light->wait(60.0)->stdout);
                $heavyResult = WrkResult::parse($heavy->wait(60.0)->stdout);
                $rows[$variant][] = [
                    'p50' => $lightResult->get('p50_ms'),
                    'p99' => $lightResult->get('p99_ms'),
                    'rps' => $lightResult->get('requests') / \max(0.001, $lightResult->get('seconds')),
                    'charts' => $heavyResult->get('requests') / \max(0.001, $heavyResult->get('seconds')),
                    'errors' => $lightResult->get('socket_errors') + $lightResult->get('non2xx'),
                    'heavyErrors' => $heavyResult->get('socket_errors') + $heavyResult->get('non2xx'),
                ];
            }
        }
    } finally {
        foreach ($servers as $server) {
            $server->stop();
        }
    }
    echo "### Light requests beside CPU-heavy ones, one HTTP worker, $jobWorkers job workers\n\n";
    echo "`wrk -t1 -c50 -d" . ($seconds - 1) . "s --latency /health` while `wrk -t1 -c4 -d{$seconds}s` asks for the fleet chart ({$width}x{$height}); the variants take turns (the order reversed every other round), nothing pinned.\n\n";
    echo "| chart drawn | light p50 | light p99 (each round) | light req/s | light errors | charts/s | chart errors (wrk's 2 s timeout) |\n|---|---:|---:|---:|---:|---:|---:|\n";
    foreach ($rows as $variant => $samples) {
        echo \sprintf(
            "| %s | %.2f ms | %.2f ms (%s) | %d | %d | %.1f | %d |\n",
            $variant === 'inline' ? 'inline, in the HTTP worker' : 'in a job worker (' . \substr($variant, 6) . ')',
            $median(\array_column($samples, 'p50')),
            $median(\array_column($samples, 'p99')),
            \implode(' / ', \array_map(static fn (float $p): string => \sprintf('%.1f', $p), \array_column($samples, 'p99'))),
            (int) $median(\array_column($samples, 'rps')),
            (int) \array_sum(\array_column($samples, 'errors')),
            $median(\array_column($samples, 'charts')),
            (int) \array_sum(\array_column($samples, 'heavyErrors')),
        );
    }
    echo "\n";
}

if (\in_array('roundtrip', $only, true)) {
    $server = $start($jobWorkers);
    try {
        $get($server, '/roundtrip?n=500');
        $samples = [];
        for ($round = 0; $round < $rounds; $round++) {
            foreach (['one' => '/roundtrip?n=3000', 'many' => '/roundtrip?n=30000&concurrency=16', 'inline' => '/roundtrip?n=30000&mode=inline'] as $case => $path) {
                $result = $get($server, $path);
                $samples[$case][] = $result['seconds'] / $result['tasks'];
            }
        }
    } finally {
        $server->stop();
    }
    echo "### An empty task's round trip, from the HTTP worker\n\n";
    echo "| | per task | tasks/s |\n|---|---:|---:|\n";
    foreach (['one' => 'one at a time, through a job worker', 'many' => "16 at a time over $jobWorkers job workers", 'inline' => 'in-process (`Jobs::inProcess()`, the PHP-FPM path)'] as $case => $label) {
        $perTask = $median($samples[$case]);
        echo \sprintf("| %s | %.1f µs | %d |\n", $label, $perTask * 1e6, (int) (1 / $perTask));
    }
    echo "\n";
}

if (\in_array('sweep', $only, true)) {
    $samples = [];
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($sweep as $jobs) {
            $server = $start($jobs);
            try {
                $get($server, "/batch?n=8&concurrency=8&width=$width&height=$height");
                $result = $get($server, "/batch?n=48&concurrency=16&width=$width&height=$height");
                $samples[$jobs][] = $result['tasks'] / $result['seconds'];
            } finally {
                $server->stop();
            }
        }
        $server = $start(1);
        try {
            $get($server, "/batch?n=8&concurrency=1&mode=inline&width=$width&height=$height");
            $result = $get($server, "/batch?n=24&concurrency=1&mode=inline&width=$width&height=$height");
            $samples['inline'][] = $result['tasks'] / $result['seconds'];
        } finally {
            $server->stop();
        }
    }
    echo "### Charts ({$width}x{$height}) per second against the number of job workers\n\n";
    echo "48 charts, 16 submitted at a time, one HTTP worker; a fresh server per count, the counts in turn each round.\n\n";
    echo "| job workers | charts/s (each round) |\n|---|---:|\n";
    echo \sprintf("| none, inline in the HTTP worker | %.1f (%s) |\n", $median($samples['inline']), \implode(' / ', \array_map(static fn (float $v): string => \sprintf('%.1f', $v), $samples['inline'])));
    foreach ($sweep as $jobs) {
        echo \sprintf("| %d | %.1f (%s) |\n", $jobs, $median($samples[$jobs]), \implode(' / ', \array_map(static fn (float $v): string => \sprintf('%.1f', $v), $samples[$jobs])));
    }
    echo "\n";
}
