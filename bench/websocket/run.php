<?php

declare(strict_types=1);

/*
 * php bench/websocket/run.php [--rounds=3] [--duration=3] [--server-cpu=0] [--load-cpu=1] [--hold=10000] [--only=echo,fanout,hold]
 *
 * WebSocket cost, Bobbin beside Node's `ws` (Debian node-ws: a C++-assisted JS server, the
 * reference; bench/websocket/ws-server.js, 30 lines), both one process pinned to --server-cpu.
 * Bobbin runs bench/websocket/chat-stats.php: examples/websocket/chat.php on /chat and
 * examples/websocket/echo.php elsewhere, `--single-process`, `--memory-limit=512M` (10,000
 * members need ~200 MB of PHP heap, over 75% of the default 256M, past which a worker takes no
 * new connection). One load generator drives both: bench/websocket/load.js (Node `ws`, pinned
 * to --load-cpu), so the ratios compare servers, not clients.
 *
 * - echo: 1 and 50 clients, each sends a 32-byte text and waits for its echo before the next;
 *   messages/s and the server's CPU per round trip.
 * - fanout: 100 and 1,000 chat members; member 0 sends 32 bytes, the next broadcast starts when
 *   every member has it; median time until all have it, and server CPU per delivered message
 *   (measured over the broadcasts only, not the joins).
 * - hold: --hold members (10,000) join and stay; one broadcast, counted at every member; the
 *   server's heap and RSS before and after the joins, per connection. Once per server.
 *
 * Rounds interleave the servers; the ratio columns are medians of per-round ratios Bobbin/ws.
 * Run it under the machine-wide lock:
 *
 *     flock /tmp/bobbin-bench.lock php bench/websocket/run.php
 */

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Shell;
use Bobbin\Bench\Summary;

require_once \dirname(__DIR__) . '/lib/autoload.php';

$options = ['rounds' => 3, 'duration' => 3, 'server-cpu' => 0, 'load-cpu' => 1, 'hold' => 10000, 'only' => 'echo,fanout,hold'];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--(rounds|duration|server-cpu|load-cpu|hold)=(\d+)$/', $argument, $m) === 1) {
        $options[$m[1]] = (int) $m[2];
    } elseif (\preg_match('/^--only=([a-z,]+)$/', $argument, $m) === 1) {
        $options['only'] = $m[1];
    } else {
        \fwrite(\STDERR, "Usage: php bench/websocket/run.php [--rounds=3] [--duration=3] [--server-cpu=0] [--load-cpu=1] [--hold=10000] [--only=echo,fanout,hold]\n");
        exit(2);
    }
}
$only = \explode(',', (string) $options['only']);
\ignore_user_abort(true);
$root = \dirname(__DIR__, 2);
$work = "$root/var/bench/websocket";
@\mkdir($work, 0777, true);
\putenv('NODE_PATH=/usr/share/nodejs');

$servers = [
    'bobbin' => static fn (int $port): array => [\PHP_BINARY, "$root/bin/bobbin", 'serve', __DIR__ . '/chat-stats.php', '--single-process',
        "--listen=127.0.0.1:$port", '--log-level=warning', '--memory-limit=512M'],
    'ws' => static fn (int $port): array => ['node', '--expose-gc', __DIR__ . '/ws-server.js', (string) $port],
];

/** @return array{resource, int, int} the process, its pid, its port */
function startServer(array $servers, string $name, int $cpu, string $work): array
{
    $port = Shell::freePort();
    $process = \proc_open(['taskset', '-c', (string) $cpu, ...$servers[$name]($port)], [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$work/$name.log", 'a'], 2 => ['file', "$work/$name.log", 'a']], $pipes);
    if (!\is_resource($process)) {
        exit(1);
    }
    Shell::waitForPort($port);

    return [$process, (int) \proc_get_status($process)['pid'], $port];
}

/** @param resource $process */
function stopServer($process): void
{
    \proc_terminate($process);
    \proc_close($process);
}

/** @return array<string, mixed> the load generator's last JSON line */
function load(int $cpu, string ...$arguments): array
{
    $command = \sprintf('taskset -c %d node %s %s 2>&1', $cpu, \escapeshellarg(__DIR__ . '/load.js'), \implode(' ', \array_map('escapeshellarg', $arguments)));
    $output = \trim((string) \shell_exec($command));
    $result = \json_decode((string) \strrchr("\n$output", "\n"), true);
    if (!\is_array($result) || isset($result['error'])) {
        throw new \RuntimeException("load.js said: $output");
    }

    return $result;
}

/**
 * Runs the load generator in a mode that says {"ready"} and then waits for a line: $measure
 * runs between ready and the go, and again after the result (for hold).
 *
 * @param \Closure(): mixed $before
 * @return array{mixed, array<string, mixed>, mixed}
 */
function loadInSteps(int $cpu, array $arguments, \Closure $before, \Closure $after): array
{
    $command = ['sh', '-c', 'ulimit -n 20000; exec "$@"', 'sh', 'taskset', '-c', (string) $cpu, 'node', __DIR__ . '/load.js', ...$arguments];
    $process = \proc_open($command, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
    if (!\is_resource($process)) {
        exit(1);
    }
    try {
        $ready = \json_decode((string) \fgets($pipes[1]), true);
        if (!\is_array($ready) || !isset($ready['ready'])) {
            throw new \RuntimeException('load.js did not get ready: ' . \json_encode($ready) . \stream_get_contents($pipes[1]));
        }
        $first = $before();
        \fwrite($pipes[0], "go\n");
        $result = \json_decode((string) \fgets($pipes[1]), true);
        if (!\is_array($result) || isset($result['error'])) {
            throw new \RuntimeException('load.js said: ' . \json_encode($result));
        }
        $second = $after();
        \fwrite($pipes[0], "bye\n");

        return [$first, $result, $second];
    } finally {
        \fclose($pipes[0]);
        \fclose($pipes[1]);
        \proc_close($process);
    }
}

$samples = [];
$holds = [];
for ($round = 1; $round <= $options['rounds']; $round++) {
    foreach (\array_keys($servers) as $name) {
        [$process, $pid, $port] = startServer($servers, $name, $options['server-cpu'], $work);
        try {
            if (\in_array('echo', $only, true)) {
                foreach ([1, 50] as $clients) {
                    load($options['load-cpu'], 'echo', "ws://127.0.0.1:$port/", (string) $clients, '1', '32'); // warm-up
                    $ticks0 = \array_sum(ProcessTree::ownTicks($pid));
                    $messages = (int) load($options['load-cpu'], 'echo', "ws://127.0.0.1:$port/", (string) $clients, (string) $options['duration'], '32')['messages'];
                    $cpu = (\array_sum(ProcessTree::ownTicks($pid)) - $ticks0) * 1e4 / \max(1, $messages); // µs (100 ticks a second)
                    $key = "echo, $clients client" . ($clients > 1 ? 's' : '');
                    $samples[$key][$name]['rate'][] = $messages / $options['duration'];
                    $samples[$key][$name]['cpu'][] = $cpu;
                    $samples[$key][$name]['ms'][] = $clients * 1000 * $options['duration'] / \max(1, $messages);
                    \fprintf(\STDERR, "round %d %-6s %-18s %8.0f msg/s %7.2f µs CPU/round trip\n", $round, $name, $key, $messages / $options['duration'], $cpu);
                }
            }
            if (\in_array('fanout', $only, true)) {
                foreach ([100 => 200, 1000 => 40] as $members => $broadcasts) {
                    [$ticks0, $result, $ticks1] = loadInSteps($options['load-cpu'], ['fanout', "ws://127.0.0.1:$port/chat", (string) $members, (string) $broadcasts, '32'],
                        static fn (): int => \array_sum(ProcessTree::ownTicks($pid)), static fn (): int => \array_sum(ProcessTree::ownTicks($pid)));
                    $deliveries = $members * $broadcasts;
                    $cpu = ($ticks1 - $ticks0) * 1e4 / $deliveries;
                    $key = "fan-out to $members members";
                    $samples[$key][$name]['rate'][] = $deliveries / (\array_sum($result['ms']) / 1000);
                    $samples[$key][$name]['cpu'][] = $cpu;
                    $samples[$key][$name]['ms'][] = Summary::median($result['ms']);
                    \fprintf(\STDERR, "round %d %-6s %-18s %8.2f ms to all %7.2f µs CPU/delivery\n", $round, $name, $key, Summary::median($result['ms']), $cpu);
                }
            }
            if ($round === 1 && \in_array('hold', $only, true)) {
                $members = $options['hold'];
                $memory = static function () use ($pid, $port): array {
                    $stats = \json_decode((string) \file_get_contents("http://127.0.0.1:$port/stats"), true);
                    \preg_match('/^VmRSS:\s+(\d+) kB/m', (string) \file_get_contents("/proc/$pid/status"), $rss);

                    return ['heap' => (int) ($stats['heap'] ?? 0), 'rss' => (int) $rss[1] * 1024];
                };
                $baseline = $memory();
                $joinStarted = \microtime(true);
                [$full, $result, $after] = loadInSteps($options['load-cpu'], ['hold', "ws://127.0.0.1:$port/chat", (string) $members],
                    static function () use ($memory, &$joinStarted): array {
                        return $memory() + ['joined' => \microtime(true) - $joinStarted];
                    }, static fn (): bool => \proc_get_status($process)['running']);
                $holds[$name] = ['members' => $members, 'baseline' => $baseline, 'full' => $full, 'result' => $result, 'running' => $after];
                \fprintf(\STDERR, "hold   %-6s %d members: joined in %.1f s, %d received the broadcast in %.0f ms, %d closed; heap +%.1f KiB, RSS +%.1f KiB per connection\n",
                    $name, $members, $full['joined'], $result['received'], $result['ms'], $result['closed'],
                    ($full['heap'] - $baseline['heap']) / $members / 1024, ($full['rss'] - $baseline['rss']) / $members / 1024);
            }
        } finally {
            stopServer($process);
        }
    }
}

if ($samples !== []) {
    echo "| case | server | messages/s | server CPU µs per round trip / per delivery | ms per round trip / until all have it | Bobbin/ws rate | Bobbin/ws CPU |\n|---|---|---|---|---|---|---|\n";
    foreach ($samples as $case => $byServer) {
        $rateRatios = \array_map(static fn (float $b, float $w): float => $b / $w, $byServer['bobbin']['rate'], $byServer['ws']['rate']);
        $cpuRatios = \array_map(static fn (float $b, float $w): float => $b / \max(0.001, $w), $byServer['bobbin']['cpu'], $byServer['ws']['cpu']);
        foreach ($byServer as $name => $s) {
            \printf("| %s | %s | %.0f | %.2f | %.2f | %s | %s |\n", $case, $name, Summary::median($s['rate']), Summary::median($s['cpu']), Summary::median($s['ms']),
                $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($rateRatios)) : '', $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($cpuRatios)) : '');
        }
    }
}
if ($holds !== []) {
    echo "\n| server | members held | joined in | received the broadcast | in | closed by the server | heap per connection | RSS per connection | heap, RSS at the end |\n|---|---|---|---|---|---|---|---|---|\n";
    foreach ($holds as $name => $h) {
        \printf("| %s | %d | %.1f s | %d | %.0f ms | %d | %.1f KiB | %.1f KiB | %.0f MiB, %.0f MiB |\n", $name, $h['members'], $h['full']['joined'],
            $h['result']['received'], $h['result']['ms'], $h['result']['closed'],
            ($h['full']['heap'] - $h['baseline']['heap']) / $h['members'] / 1024, ($h['full']['rss'] - $h['baseline']['rss']) / $h['members'] / 1024,
            $h['full']['heap'] / 1048576, $h['full']['rss'] / 1048576);
    }
}

