<?php

declare(strict_types=1);

/*
 * The IPC benchmark: channel x size x reconnect for the C client (the ceiling), bare PHP (the
 * floor of what any PHP code gets: bench/ipc/php-bare.php) and the PHP client (blocking and in a
 * fiber), plus many fibers sharing one connection, on the same vCPU and on different vCPUs.
 * Prints markdown tables (medians of --runs runs).
 *
 * Runs of the C and PHP clients are interleaved, so a burst of outside load hits all of them
 * alike, and each row first waits (up to --noise-wait seconds) for the machine to be idle.
 *
 * Every PHP process first runs its workload once untimed (same requests, same reconnects, same
 * fibers), so the figures are those of a warm process whose tracing JIT has compiled the client,
 * as a server's is; --cold times the first pass instead (the C client needs no warm-up).
 *
 * --baseline=DIR compares the PHP client with another checkout's (DIR holds src/, vendor/ and
 * bench/ipc/php-client.php, e.g. `git archive REV | tar -x -C DIR` plus a copy of vendor/): its
 * runs are interleaved with this checkout's in every row, and the table shows both and the
 * ratio instead of the bare-PHP column. Daemon and C client are this checkout's for both.
 *
 * usage: php bench/ipc/run.php [--runs=5] [--quick] [--noise-wait=20] [--cold] [--baseline=DIR]
 */

$root = \dirname(__DIR__, 2);
$options = \getopt('', ['runs:', 'quick', 'noise-wait:', 'cold', 'baseline:', 'help']);
if (isset($options['help'])) {
    echo "usage: php bench/ipc/run.php [--runs=5] [--quick] [--noise-wait=20] [--cold] [--baseline=DIR]\n";
    exit(0);
}
$baseline = isset($options['baseline']) ? \rtrim((string) $options['baseline'], '/') : null;
if ($baseline !== null && !\is_file("$baseline/bench/ipc/php-client.php")) {
    \fwrite(\STDERR, "--baseline=$baseline: no bench/ipc/php-client.php there\n");
    exit(2);
}
$cold = isset($options['cold']);
$runs = (int) ($options['runs'] ?? 5);
$noiseWait = (float) ($options['noise-wait'] ?? 20);
$quick = isset($options['quick']);
$cpus = (int) \trim((string) \shell_exec('nproc'));

\passthru('make -s -C ' . \escapeshellarg("$root/native"), $code);
if ($code !== 0) {
    exit(1);
}
$daemonBinary = "$root/native/build/bobbin-ipcd";
$cBench = "$root/native/build/bobbin-ipc-bench";
require_once "$root/vendor/autoload.php";
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone
// PHP runs as `bin/bobbin serve` runs it: opcache with the tracing JIT (Bobbin\Cli\OpcacheRelaunch).
$phpSettings = [];
foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
    \array_push($phpSettings, '-d', "$name=$value");
}
$php = [\PHP_BINARY, ...$phpSettings, '-d', 'memory_limit=1G', "$root/bench/ipc/php-client.php"];
$barePhp = [\PHP_BINARY, ...$phpSettings, "$root/bench/ipc/php-bare.php"];
$phpBefore = $baseline === null ? [] : [\PHP_BINARY, ...$phpSettings, '-d', 'memory_limit=1G', "$baseline/bench/ipc/php-client.php"];

/**
 * @param list<string> $extra
 * @return array{resource, int, string, int}
 */
function startDaemon(string $binary, ?int $cpu, array $extra = []): array
{
    $socket = \sys_get_temp_dir() . '/bobbin-ipc-bench-' . \getmypid() . '.sock';
    $log = (string) \tempnam(\sys_get_temp_dir(), 'ipcd-bench-');
    $command = \array_merge($cpu === null ? [] : ['taskset', '-c', (string) $cpu], [$binary, "--unix=$socket", '--tcp=127.0.0.1:0'], $extra);
    $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes);
    for ($i = 0; $i < 500; $i++) {
        if (\preg_match('/tcp=127\.0\.0\.1:(\d+) pid=(\d+)/', (string) \file_get_contents($log), $m) === 1) {
            return [$process, (int) $m[2], $socket, (int) $m[1]];
        }
        \usleep(10_000);
    }
    throw new \RuntimeException('daemon did not start: ' . \file_get_contents($log));
}

/** @param array{resource, int, string, int} $daemon */
function stopDaemon(array $daemon): void
{
    \posix_kill($daemon[1], \SIGTERM);
    \proc_close($daemon[0]);
}

/** Busy share of all CPUs over $seconds, from /proc/stat. */
function busyShare(float $seconds): float
{
    $read = static function (): array {
        $f = \preg_split('/\s+/', \trim((string) \strtok((string) \file_get_contents('/proc/stat'), "\n")));
        $values = \array_map('intval', \array_slice($f, 1));

        return [\array_sum($values), $values[3] + ($values[4] ?? 0)];
    };
    [$t0, $i0] = $read();
    \usleep((int) ($seconds * 1e6));
    [$t1, $i1] = $read();

    return $t1 > $t0 ? 1.0 - ($i1 - $i0) / ($t1 - $t0) : 0.0;
}

/** Waits until others leave the CPUs alone (at most $limit seconds); returns the last busy share. */
function waitForQuiet(float $limit): float
{
    $deadline = \microtime(true) + $limit;
    do {
        $busy = busyShare(0.3);
    } while ($busy > 0.10 && \microtime(true) < $deadline);

    return $busy;
}

/**
 * Runs every command $runs times, interleaved (each round starting with the next command), and
 * returns the median of each.
 *
 * @param array<string, list<string>> $commands
 * @return array<string, float>
 */
function measure(array $commands, int $runs): array
{
    $results = \array_fill_keys(\array_keys($commands), []);
    $names = \array_keys($commands);
    for ($r = 0; $r < $runs; $r++) {
        // Each round starts with the next client: position matters. A client that reconnects
        // over TCP leaves thousands of connections in TIME_WAIT, and the clients after it pay
        // for a longer search of free ports (a fixed order made the last one look 2x slower).
        $order = [...\array_slice($names, $r % \count($names)), ...\array_slice($names, 0, $r % \count($names))];
        foreach ($order as $name) {
            $command = $commands[$name];
            $out = [];
            \exec(\implode(' ', \array_map('escapeshellarg', $command)) . ' 2>&1', $out, $code);
            if ($code !== 0) {
                throw new \RuntimeException(\implode(' ', $command) . ' failed: ' . \implode("\n", $out));
            }
            $results[$name][] = (float) \explode(' ', $out[0])[0];
        }
    }
    $medians = [];
    foreach ($results as $name => $values) {
        \sort($values);
        $medians[$name] = $values[\intdiv(\count($values), 2)];
    }

    return $medians;
}

/**
 * @param list<string> $command
 * @return list<string>
 */
function pinned(?int $cpu, array $command): array
{
    return $cpu === null ? $command : \array_merge(['taskset', '-c', (string) $cpu], $command);
}

$placements = $cpus >= 2
    ? [
        'same vCPU (both on cpu 0)' => [0, 0, []],
        'different vCPUs (daemon cpu 1, client cpu 0)' => [1, 0, []],
        'different vCPUs, daemon started with --spin-us=50' => [1, 0, ['--spin-us=50']],
    ]
    : ['one vCPU' => [null, null, []]];
$reconnects = ['never' => 0, 'every 10' => 10, 'every request' => 1];
$counts = $quick ? [0 => 5000, 10 => 3000, 1 => 1000] : [0 => 20000, 10 => 10000, 1 => 3000];

// An interrupted run must not leave its daemon behind.
/** @var array{resource, int, string, int}|null $current */
$current = null;
\register_shutdown_function(static function () use (&$current): void {
    if ($current !== null) {
        \posix_kill($current[1], \SIGTERM);
    }
});
// A closed stdout (`run.php | head`) is a "user abort" to PHP's CLI, which bails out without
// running shutdown functions; ignoring it lets the SIGPIPE handler's exit() run the one above.
\ignore_user_abort(true);
\pcntl_async_signals(true);
foreach ([\SIGINT, \SIGTERM, \SIGPIPE, \SIGHUP] as $signal) {
    \pcntl_signal($signal, static fn () => exit(130));
}

\printf("# IPC benchmark — %s, PHP %s (%s), %d vCPUs, medians of %d runs, PHP warm-up %s, requests/s%s\n\n", \date('Y-m-d H:i'), \PHP_VERSION, \implode(' ', \array_map(static fn ($k, $v) => "$k=$v", \array_keys(\Bobbin\Cli\OpcacheRelaunch::SETTINGS), \Bobbin\Cli\OpcacheRelaunch::SETTINGS)), $cpus, $runs, $cold ? 'none (cold processes)' : 'one untimed pass of the same workload', $baseline === null ? '' : "; before: $baseline, after: $root");
foreach ($placements as $placementName => [$daemonCpu, $clientCpu, $daemonOptions]) {
    $daemon = startDaemon($daemonBinary, $daemonCpu, \array_merge(['--quiet'], $daemonOptions));
    $current = $daemon;
    [, , $socket, $port] = $daemon;
    echo "## $placementName\n\n";
    if ($baseline === null) {
        echo "| channel | size | reconnect | C client | bare PHP | PHP blocking | PHP in a fiber | fiber / C | blocking / C | bare PHP / C | CPU busy before |\n";
        echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    } else {
        echo "| channel | size | reconnect | C client | PHP blocking before | after | PHP in a fiber before | after | blocking after / before | fiber after / before | CPU busy before |\n";
        echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    }
    foreach (['tcp', 'unix', 'shm'] as $channel) {
        foreach ([128, 2048] as $size) {
            foreach ($reconnects as $reconnectName => $every) {
                $n = $counts[$every];
                $args = [$channel, $socket, (string) $port, (string) $size, (string) $n, (string) $every];
                $busy = waitForQuiet($noiseWait);
                $warm = $cold ? '0' : (string) $n;
                if ($baseline !== null) {
                    ['c' => $c, 'blocking before' => $blockingBefore, 'blocking' => $blocking, 'fiber before' => $fiberBefore, 'fiber' => $fiber] = measure([
                        'c' => pinned($clientCpu, \array_merge([$cBench], $args)),
                        'blocking before' => pinned($clientCpu, \array_merge($phpBefore, $args, ['blocking', $warm])),
                        'blocking' => pinned($clientCpu, \array_merge($php, $args, ['blocking', $warm])),
                        'fiber before' => pinned($clientCpu, \array_merge($phpBefore, $args, ['fiber', $warm])),
                        'fiber' => pinned($clientCpu, \array_merge($php, $args, ['fiber', $warm])),
                    ], $runs);
                    \printf("| %s | %d B | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f | %.3f | %.0f %% |\n", $channel, $size, $reconnectName, $c, $blockingBefore, $blocking, $fiberBefore, $fiber, $blocking / $blockingBefore, $fiber / $fiberBefore, $busy * 100);
                    continue;
                }
                ['c' => $c, 'bare' => $bare, 'blocking' => $blocking, 'fiber' => $fiber] = measure([
                    'c' => pinned($clientCpu, \array_merge([$cBench], $args)),
                    'bare' => pinned($clientCpu, \array_merge($barePhp, $args, [$warm])),
                    'blocking' => pinned($clientCpu, \array_merge($php, $args, ['blocking', $warm])),
                    'fiber' => pinned($clientCpu, \array_merge($php, $args, ['fiber', $warm])),
                ], $runs);
                \printf("| %s | %d B | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.0f %% |\n", $channel, $size, $reconnectName, $c, $bare, $blocking, $fiber, $fiber / $c, $blocking / $c, $bare / $c, $busy * 100);
            }
        }
    }
    echo $baseline === null
        ? "\n| many fibers on one connection | size | requests/s |\n|---|---|---:|\n"
        : "\n| many fibers on one connection | size | before | after | after / before |\n|---|---|---:|---:|---:|\n";
    foreach (['shm' => [1000, 100], 'unix' => [1000, 100]] as $channel => $fiberCounts) {
        foreach ($fiberCounts as $fibers) {
            // 200 rounds of 1,000 even with --quick (~0.2 s): with 50 the release at the barrier
            // and the last stragglers, not the steady state, set a tenth of the figure.
            $n = 200000;
            $args = [$channel, $socket, (string) $port, '128', (string) $n, '0', "fibers:$fibers", $cold ? '0' : (string) $n];
            waitForQuiet($noiseWait);
            if ($baseline !== null) {
                ['before' => $before, 'after' => $after] = measure([
                    'before' => pinned($clientCpu, \array_merge($phpBefore, $args)),
                    'after' => pinned($clientCpu, \array_merge($php, $args)),
                ], $runs);
                \printf("| %s, %d fibers | 128 B | %.0f | %.0f | %.3f |\n", $channel, $fibers, $before, $after, $after / $before);
                continue;
            }
            \printf("| %s, %d fibers | 128 B | %.0f |\n", $channel, $fibers, measure(['php' => pinned($clientCpu, \array_merge($php, $args))], $runs)['php']);
        }
    }
    echo "\n";
    stopDaemon($daemon);
    $current = null;
}
