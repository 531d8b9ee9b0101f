<?php

declare(strict_types=1);

/*
 * CPU time per request of the PHP client of two or more checkouts, measured in turns against
 * one daemon: for an A/B of a change to src/Ipc whose effect is smaller than the wall-clock
 * noise of bench/ipc/run.php (a busy host moves requests/s by several per cent between runs,
 * while the client's own CPU time per request moves by about one).
 *
 * Each run is a fresh `php-client.php` process (the checkout's own), pinned to one CPU with the
 * daemon, running REQUESTS untimed and REQUESTS timed; its user + system CPU time (getrusage of
 * the waited-for child) divided by 2 x REQUESTS is the figure, start-up included (the same for
 * every checkout, so it only dilutes the ratios a little). Medians of --runs, each round
 * starting with the next checkout.
 *
 * usage: php bench/ipc/cpu-ab.php [--runs=5] [--cpu=0] DIR_BEFORE DIR_AFTER [DIR...] -- ROW...
 *   ROW: "channel size requests reconnect mode", e.g. "shm 128 300000 0 fiber",
 *        "unix 128 400000 0 fibers:1000" (php-client.php's arguments)
 */

$root = \dirname(__DIR__, 2);
$args = \array_slice($argv, 1);
$runs = 5;
$cpu = 0;
while ($args !== [] && \str_starts_with($args[0], '--') && $args[0] !== '--') {
    $option = \array_shift($args);
    if (\preg_match('/^--(runs|cpu)=(\d+)$/', $option, $m) !== 1) {
        \fwrite(\STDERR, "unknown option $option\n");
        exit(2);
    }
    if ($m[1] === 'runs') {
        $runs = (int) $m[2];
    } else {
        $cpu = (int) $m[2];
    }
}
$separator = \array_search('--', $args, true);
if ($separator === false || $separator < 2 || $separator === \count($args) - 1) {
    \fwrite(\STDERR, "usage: php bench/ipc/cpu-ab.php [--runs=5] [--cpu=0] DIR_BEFORE DIR_AFTER [DIR...] -- ROW...\n");
    exit(2);
}
$dirs = \array_map(static fn (string $d): string => \rtrim($d, '/'), \array_slice($args, 0, $separator));
$rows = \array_slice($args, $separator + 1);
foreach ($dirs as $dir) {
    if (!\is_file("$dir/bench/ipc/php-client.php")) {
        \fwrite(\STDERR, "$dir: no bench/ipc/php-client.php there\n");
        exit(2);
    }
}

\passthru('make -s -C ' . \escapeshellarg("$root/native"), $code);
if ($code !== 0) {
    exit(1);
}
require_once "$root/vendor/autoload.php";
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone
$php = [\PHP_BINARY];
foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
    \array_push($php, '-d', "$name=$value");
}
\array_push($php, '-d', 'memory_limit=1G');

$socket = \sys_get_temp_dir() . '/bobbin-ipc-cpu-ab-' . \getmypid() . '.sock';
$log = (string) \tempnam(\sys_get_temp_dir(), 'ipcd-cpu-ab-');
$daemon = \proc_open(['taskset', '-c', (string) $cpu, "$root/native/build/bobbin-ipcd", "--unix=$socket", '--tcp=127.0.0.1:0', '--quiet'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes);
$port = 0;
$pid = 0;
for ($i = 0; $i < 500 && $port === 0; $i++) {
    if (\preg_match('/tcp=127\.0\.0\.1:(\d+) pid=(\d+)/', (string) \file_get_contents($log), $m) === 1) {
        [$port, $pid] = [(int) $m[1], (int) $m[2]];
    } else {
        \usleep(10_000);
    }
}
if ($port === 0) {
    \fwrite(\STDERR, 'the daemon did not start: ' . \file_get_contents($log));
    exit(1);
}
\register_shutdown_function(static function () use ($pid, $daemon, $log): void {
    \posix_kill($pid, \SIGTERM);
    \proc_close($daemon);
    @\unlink($log);
});

/** User + system CPU seconds of the waited-for children so far. */
$childCpu = static function (): float {
    $u = \getrusage(1); // RUSAGE_CHILDREN

    return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
};

\printf("# CPU time per request, µs — %s, PHP %s, medians of %d runs, client and daemon on cpu %d\n\n", \date('Y-m-d H:i'), \PHP_VERSION, $runs, $cpu);
echo '| row | ' . \implode(' | ', \array_map('basename', $dirs)) . ' | ' . \implode(' | ', \array_map(static fn (string $d): string => \basename($d) . ' / ' . \basename($dirs[0]), \array_slice($dirs, 1))) . " |\n";
echo '|---|' . \str_repeat('---:|', 2 * \count($dirs) - 1) . "\n";
foreach ($rows as $row) {
    [$channel, $size, $requests, $every, $mode] = \preg_split('/\s+/', \trim($row)) + ['', '', '', '', ''];
    $results = \array_fill_keys($dirs, []);
    for ($r = 0; $r < $runs; $r++) {
        $order = [...\array_slice($dirs, $r % \count($dirs)), ...\array_slice($dirs, 0, $r % \count($dirs))];
        foreach ($order as $dir) {
            $command = ['taskset', '-c', (string) $cpu, ...$php, "$dir/bench/ipc/php-client.php", $channel, $socket, (string) $port, $size, $requests, $every, $mode, $requests];
            $before = $childCpu();
            \exec(\implode(' ', \array_map('escapeshellarg', $command)) . ' 2>&1', $out, $code);
            if ($code !== 0) {
                \fwrite(\STDERR, \implode("\n", $out) . "\n");
                exit(1);
            }
            $results[$dir][] = ($childCpu() - $before) * 1e6 / (2 * (int) $requests);
        }
    }
    $medians = [];
    foreach ($results as $dir => $values) {
        \sort($values);
        $medians[$dir] = $values[\intdiv(\count($values), 2)];
    }
    $base = $medians[$dirs[0]];
    \printf(
        "| %s | %s | %s |\n",
        $row,
        \implode(' | ', \array_map(static fn (float $v): string => \sprintf('%.3f', $v), $medians)),
        \implode(' | ', \array_map(static fn (string $d): string => \sprintf('%.3f', $medians[$d] / $base), \array_slice($dirs, 1))),
    );
}
