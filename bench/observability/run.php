<?php

declare(strict_types=1);

/*
 * php bench/observability/run.php [--rounds=5] [--seconds=5] [--only=hello|crud] [--write-doc]
 *
 * What observability costs: server CPU per hello-world request and per CRUD cycle of one worker
 * under its master, with each feature off and on, the variants interleaved round by round:
 *   base     --block-threshold=0, no admin listener
 *   admin    + --admin, scraped once a second (/metrics) during the window
 *   block    --block-threshold=0.1 (the default)
 *   both     admin and block: the defaults plus an admin listener
 *   leaks    --detect-leaks (block off): requests one at a time, a snapshot before and after each
 * CPU is every server process's (master and worker: the master looks at the heartbeat every
 * 25 ms when blocking detection is on), from /proc, over the load's window. The server runs on
 * CPU 0; the load generator (wrk -t1 -c50, or bobbin-crud-load with 50 connections), the
 * scraper and PostgreSQL on CPU 1. --write-doc replaces `## Measured` in docs/OBSERVABILITY.md.
 * Hold the machine-wide lock: flock /tmp/bobbin-bench.lock php bench/observability/run.php
 */

require __DIR__ . '/../lib/ProcessTree.php';

use Bobbin\Bench\ProcessTree;

$root = \dirname(__DIR__, 2);
$options = ['rounds' => '5', 'seconds' => '5', 'only' => '', 'write-doc' => false];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--([a-z-]+)(?:=(.*))?$/', $argument, $m) !== 1 || !\array_key_exists($m[1], $options)) {
        \fwrite(\STDERR, "Unknown argument $argument\n");
        exit(2);
    }
    $options[$m[1]] = $m[2] ?? true;
}
$rounds = (int) $options['rounds'];
$seconds = (int) $options['seconds'];
$databaseUrl = \trim((string) \shell_exec(\escapeshellarg($root . '/scripts/pg') . ' start >/dev/null 2>&1; ' . \escapeshellarg($root . '/scripts/pg') . ' url'));
$loadgen = $root . '/bench/loadgen/build/bobbin-crud-load';
if (!\is_executable($loadgen)) {
    \shell_exec('make -s -C ' . \escapeshellarg($root . '/bench/loadgen'));
}

$variants = [
    'base' => ['--block-threshold=0'],
    'admin' => ['--block-threshold=0', '--admin'],
    'block' => ['--block-threshold=0.1'],
    'both' => ['--block-threshold=0.1', '--admin'],
    'leaks' => ['--block-threshold=0', '--detect-leaks'],
];
$workloads = ['hello' => $root . '/examples/hello.php', 'crud' => $root . '/apps/aircraft/server.php'];
if ($options['only'] !== '') {
    $workloads = \array_intersect_key($workloads, [$options['only'] => true]);
}

/** @return array{float, int, string} server CPU seconds, requests (or CRUD cycles), errors */
function measure(string $root, string $app, array $flags, string $workload, int $seconds, string $databaseUrl, string $loadgen): array
{
    $port = freePort();
    $admin = '';
    foreach ($flags as $i => $flag) {
        if ($flag === '--admin') {
            $admin = '127.0.0.1:' . freePort();
            $flags[$i] = '--admin=' . $admin;
        }
    }
    $log = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-obs-');
    $command = ['taskset', '-c', '0', \PHP_BINARY, $root . '/bin/bobbin', 'serve', $app, '--workers=1', '--job-workers=0',
        '--listen=127.0.0.1:' . $port, '--log-level=error', ...$flags];
    $server = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'w']], $pipes, null, [...\getenv(), 'DATABASE_URL' => $databaseUrl]);
    \assert(\is_resource($server));
    $pid = (int) \proc_get_status($server)['pid'];
    $scraper = 0;
    try {
        for ($attempt = 0; ($socket = @\stream_socket_client("tcp://127.0.0.1:$port", $code, $message, 1)) === false; $attempt++) {
            if ($attempt > 200) {
                throw new \RuntimeException('the server did not start: ' . \file_get_contents($log));
            }
            \usleep(50_000);
        }
        \fclose($socket);
        \usleep(300_000);
        if ($admin !== '') {
            $scraper = \pcntl_fork();
            if ($scraper === 0) {
                \shell_exec('taskset -p -c 1 ' . \getmypid() . ' >/dev/null');
                while (true) {
                    @\file_get_contents("http://$admin/metrics");
                    \sleep(1);
                }
            }
        }
        $pids = ProcessTree::expand([$pid]);
        $before = \array_sum(ProcessTree::cpuTicks($pids));
        if ($workload === 'crud') {
            $output = (string) \shell_exec(\sprintf('taskset -c 1 %s --url=http://127.0.0.1:%d --connections=50 --duration=%d --nonce=%s 2>&1', \escapeshellarg($loadgen), $port, $seconds, \uniqid()));
            $after = \array_sum(ProcessTree::cpuTicks($pids));
            $result = \preg_match('/^RESULT (\{.*\})$/m', $output, $r) === 1 ? \json_decode($r[1], true) : null;
            if (!\is_array($result)) {
                throw new \RuntimeException("bobbin-crud-load said:\n$output");
            }
            [$done, $errors] = [(int) $result['cycles'], (int) $result['failed_cycles'] > 0 ? 'failed cycles: ' . $result['failed_cycles'] : ''];
        } else {
            $output = (string) \shell_exec(\sprintf('taskset -c 1 wrk -t1 -c50 -d%ds http://127.0.0.1:%d/ 2>&1', $seconds, $port));
            $after = \array_sum(ProcessTree::cpuTicks($pids));
            if (\preg_match('/(\d+) requests in/', $output, $m) !== 1) {
                throw new \RuntimeException("wrk said:\n$output");
            }
            [$done, $errors] = [(int) $m[1], \preg_match('/Non-2xx or 3xx responses: \d+|Socket errors: .*/', $output, $e) === 1 ? $e[0] : ''];
        }

        return [($after - $before) / ProcessTree::ticksPerSecond(), $done, $errors];
    } finally {
        if ($scraper > 0) {
            \posix_kill($scraper, \SIGKILL);
            \pcntl_waitpid($scraper, $status);
        }
        \proc_terminate($server, \SIGTERM);
        for ($i = 0; $i < 200 && \proc_get_status($server)['running']; $i++) {
            \usleep(50_000);
        }
        @\unlink($log);
    }
}

function freePort(): int
{
    $probe = \stream_socket_server('tcp://127.0.0.1:0');
    \assert($probe !== false);
    $name = (string) \stream_socket_get_name($probe, false);
    \fclose($probe);

    return (int) \substr($name, (int) \strrpos($name, ':') + 1);
}

$samples = [];
for ($round = 1; $round <= $rounds; $round++) {
    foreach ($workloads as $workload => $app) {
        foreach ($variants as $variant => $flags) {
            [$cpu, $done, $errors] = measure($root, $app, $flags, $workload, $seconds, $databaseUrl, $loadgen);
            $perUnit = $cpu / \max(1, $done) * 1e6;
            $samples[$workload][$variant][] = $perUnit;
            \fprintf(\STDERR, "round %d %-5s %-6s %8.2f µs (%d done%s)\n", $round, $workload, $variant, $perUnit, $done, $errors === '' ? '' : ", $errors");
        }
    }
}

$median = static function (array $values): float {
    \sort($values);
    $n = \count($values);

    return $n % 2 === 1 ? $values[intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2;
};
$lines = [
    \sprintf('Measured %s UTC on this 2-core machine: `flock /tmp/bobbin-bench.lock php bench/observability/run.php --rounds=%d --seconds=%d`. One worker under its master (`--job-workers=0`), server processes on CPU 0, load and PostgreSQL on CPU 1; server CPU (master + worker) per request or per CRUD cycle, median of %d interleaved rounds (min–max), ratio to `base`.', \gmdate('Y-m-d H:i'), $rounds, $seconds, $rounds),
    '',
    '| workload | variant | CPU µs per unit | ratio to base |',
    '|---|---|---|---|',
];
foreach ($samples as $workload => $byVariant) {
    $base = $median($byVariant['base']);
    foreach ($byVariant as $variant => $values) {
        $lines[] = \sprintf('| %s | %s | %.1f (%.1f–%.1f) | %.3f |', $workload === 'crud' ? 'CRUD cycle' : 'hello request', $variant, $median($values), \min($values), \max($values), $median($values) / $base);
    }
}
$table = \implode("\n", $lines) . "\n";
echo $table;
if ($options['write-doc'] !== false) {
    $doc = $root . '/docs/OBSERVABILITY.md';
    $text = (string) \file_get_contents($doc);
    $at = \strpos($text, "## Measured\n");
    \assert($at !== false);
    \file_put_contents($doc, \substr($text, 0, $at) . "## Measured\n\n" . $table);
}
