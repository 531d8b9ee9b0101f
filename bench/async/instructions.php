<?php

declare(strict_types=1);

/*
 * bench/async/instructions.php ROOT [--app=FILE] [--requests=1000,3000] [--concurrency=50] [--jit=tracing|function|no] [--keep=DIR] [--serve-args=ARGS]
 * bench/async/instructions.php ROOT --load=crud [--seconds=10,30] [--concurrency=20] [...]
 *
 * Instructions per HTTP request of `bin/bobbin serve APP --single-process` from the checkout at
 * ROOT, counted by valgrind's callgrind, so the figure does not move with whatever else the
 * machine does (seconds do). The server runs twice, answering A and then B keep-alive requests
 * of `ab -k -cN`; (instructions(B) - instructions(A)) / (B - A) leaves out start-up, opcache
 * warm-up and shutdown. The loop driver is whatever BOBBIN_LOOP_DRIVER picks; --jit=tracing (the
 * default, as bin/bobbin serve runs) runs with opcache and the tracing JIT, --jit=function with
 * the function JIT, --jit=no with opcache alone. --keep=DIR keeps both callgrind files there
 * (bench/async/instructions-by-function.php reads them). --serve-args replaces
 * `--single-process` (older checkouts, which served in one process by default, lack that
 * option: --serve-args=, or --serve-args=--workers=1).
 *
 * --load=crud counts the aircraft CRUD cycle instead (POST, GET, PUT, DELETE against
 * PostgreSQL): the app defaults to ROOT/apps/aircraft/server.php, bench/loadgen's
 * bobbin-crud-load drives it over --concurrency connections (20 by default) for A and then B
 * seconds, and the figure is per cycle, over the cycles the load generator completed. The
 * database is this checkout's embedded PostgreSQL (scripts/pg start; its DATABASE_URL is handed
 * to the server, so another checkout's application uses it too).
 *
 * valgrind slows the server ~50x, so every loop turn is a "long stretch of work" to the
 * arrival-time rule (BobbinDriver::arrivalTime(), which then asks the kernel for each socket's
 * receive time): BOBBIN_LOOP_LATE_MS=10000 is set for the server so the count measures what
 * a request costs at native speed. Prints one JSON line.
 *
 * --peer=swoole|workerman|amphp counts a peer's hello (bench/peers/<peer>/hello.php, built by
 * bench/peers/build), or with --load=crud its aircraft app (crud.php), the same way instead of
 * Bobbin, with the same PHP settings and database; every process
 * of the server is counted (Workerman's master and its worker: callgrind follows the fork and
 * writes a file per process, summed here).
 *
 * Examples: php bench/async/instructions.php . --app=bench/async/hello-nyholm.php
 *           php bench/async/instructions.php . --peer=workerman
 *           php bench/async/instructions.php . --load=crud [--peer=workerman]
 */

use Bobbin\Bench\Callgrind;

require \dirname(__DIR__) . '/lib/autoload.php';
require __DIR__ . '/options.php';
[$root, $options] = benchArguments($argv, 'php bench/async/instructions.php ROOT [--load=ab|crud] [--app=FILE] [--requests=A,B | --seconds=A,B] [--concurrency=N] [--jit=tracing|function|no] [--keep=DIR] [--serve-args=ARGS]');
$load = (string) ($options['load'] ?? 'ab');
if (!\in_array($load, ['ab', 'crud'], true)) {
    \fwrite(\STDERR, "--load is ab or crud\n");
    exit(2);
}
$crud = $load === 'crud';
$app = (string) ($options['app'] ?? ($crud ? \rtrim($root, '/') . '/apps/aircraft/server.php' : 'examples/hello.php'));
[$fewer, $more] = \array_map('intval', \explode(',', (string) ($crud ? $options['seconds'] ?? '10,30' : $options['requests'] ?? '2000,6000')));
$concurrency = (int) ($options['concurrency'] ?? ($crud ? 20 : 50));
$jit = (string) ($options['jit'] ?? 'tracing');
if (!\in_array($jit, ['tracing', 'function', 'no'], true)) {
    \fwrite(\STDERR, "--jit is tracing, function or no\n");
    exit(2);
}
$keep = isset($options['keep']) ? (string) $options['keep'] : null;
$serveArgs = \preg_split('/\s+/', \trim((string) ($options['serve-args'] ?? '--single-process')), -1, \PREG_SPLIT_NO_EMPTY) ?: [];
if ($fewer <= 0 || $more <= $fewer) {
    \fwrite(\STDERR, ($crud ? '--seconds' : '--requests') . "=A,B needs 0 < A < B\n");
    exit(2);
}
$loadGenerator = null;
$databaseUrl = null;
if ($crud) {
    $loadGenerator = \dirname(__DIR__) . '/loadgen/build/bobbin-crud-load';
    \exec('make -s -C ' . \escapeshellarg(\dirname(__DIR__) . '/loadgen') . ' 2>&1', $makeOutput, $makeStatus);
    $databaseUrl = \trim((string) @\file_get_contents(\dirname(__DIR__, 2) . '/var/pg/url'));
    if ($makeStatus !== 0 || !\is_executable($loadGenerator) || $databaseUrl === '') {
        \fwrite(\STDERR, "--load=crud needs bench/loadgen built (make) and the embedded PostgreSQL started (scripts/pg start)\n" . \implode("\n", $makeOutput) . "\n");
        exit(1);
    }
    \exec(\escapeshellarg(\dirname(__DIR__, 2) . '/scripts/pg') . ' psql -q -v ON_ERROR_STOP=1 -f ' . \escapeshellarg(\dirname(__DIR__, 2) . '/apps/aircraft/schema.sql') . ' 2>&1', $schemaOutput, $schemaStatus);
    if ($schemaStatus !== 0) {
        \fwrite(\STDERR, "applying apps/aircraft/schema.sql failed:\n" . \implode("\n", $schemaOutput) . "\n");
        exit(1);
    }
}
foreach (['valgrind', ...($crud ? [] : ['ab'])] as $tool) {
    if (\trim((string) \shell_exec('command -v ' . $tool)) === '') {
        \fwrite(\STDERR, "$tool is not installed\n");
        exit(1);
    }
}
$appPath = \str_starts_with($app, '/') ? $app : \dirname(__DIR__, 2) . '/' . $app;
$peer = isset($options['peer']) ? (string) $options['peer'] : null;
if ($peer !== null) {
    $peerApp = $crud ? 'crud.php' : 'hello.php';
    if (!\is_file(\dirname(__DIR__) . "/peers/$peer/$peerApp") || !\is_dir(\dirname(__DIR__, 2) . "/var/peers/$peer")) {
        \fwrite(\STDERR, "--peer is swoole, workerman or amphp (bench/peers/build first)\n");
        exit(2);
    }
    $app = "bench/peers/$peer/$peerApp";
    $appPath = \dirname(__DIR__) . "/peers/$peer/$peerApp";
}

/**
 * Instructions the server executed from start to graceful stop, having answered $amount
 * requests (ab), or having been driven for $amount seconds (CRUD), with what it answered.
 *
 * @param list<string> $serveArgs
 * @return array{int, int} [instructions, requests or cycles answered]
 */
function countInstructions(string $root, string $appPath, array $serveArgs, int $amount, int $concurrency, string $jit, ?string $keep, ?string $loadGenerator, ?string $databaseUrl): array
{
    $port = freePort();
    $out = Callgrind::outFile();
    // With --keep, /tmp/perf-PID.map names the JIT's code: bench/async/instructions-by-function.php reads it.
    $php = Callgrind::php($jit, $keep !== null);
    global $peer;
    if ($peer === 'swoole') {
        $php = [...$php, '-d', 'extension=' . \dirname(__DIR__, 2) . '/var/peers/swoole/swoole.so'];
    }
    $command = [
        ...Callgrind::prefix($out . '.%p'),
        ...$php, ...($peer === null ? [$root . '/bin/bobbin', 'serve', $appPath, ...$serveArgs, '--listen=127.0.0.1:' . $port] : [$appPath, (string) $port]),
    ];
    $env = \getenv();
    $env['BOBBIN_OPCACHE_RELAUNCHED'] = '1'; // opcache is on the command line already
    $env['BOBBIN_LOOP_LATE_MS'] = '10000';
    $env['BOBBIN_PEER_STOP_TIMEOUT'] = '120'; // Workerman's worker writes its callgrind file before the master kills it
    if ($databaseUrl !== null) {
        $env['DATABASE_URL'] = $databaseUrl;
    }
    $server = \proc_open($command, [1 => ['file', '/dev/null', 'w'], 2 => ['file', $out . '.log', 'w']], $pipes, null, $env);
    \assert(\is_resource($server));
    $deadline = \microtime(true) + 120;
    while (@\fsockopen('127.0.0.1', $port, $code, $message, 1) === false) {
        if (\microtime(true) > $deadline) {
            throw new \RuntimeException('The server did not start under valgrind within 120 s: ' . @\file_get_contents($out . '.log'));
        }
        \usleep(200_000);
    }
    try {
        if ($loadGenerator === null) {
            $answered = $amount;
            \exec(\sprintf('ab -q -k -c%d -n%d http://127.0.0.1:%d/ 2>&1', $concurrency, $amount, $port), $abOutput, $abStatus);
            if ($abStatus !== 0 || \preg_match('/Complete requests:\s+(\d+)/', \implode("\n", $abOutput), $m) !== 1 || (int) $m[1] !== $amount) {
                throw new \RuntimeException("ab failed:\n" . \implode("\n", $abOutput));
            }
            if (\preg_match('/Failed requests:\s+(\d+)/', \implode("\n", $abOutput), $m) === 1 && (int) $m[1] !== 0) {
                throw new \RuntimeException("ab saw failed requests:\n" . \implode("\n", $abOutput));
            }
        } else {
            // Generous timeouts: every request is ~50x slower under valgrind.
            \exec(\sprintf('%s --url=http://127.0.0.1:%d --connections=%d --duration=%d --timeout=60 2>&1', \escapeshellarg($loadGenerator), $port, $concurrency, $amount), $loadOutput, $loadStatus);
            $result = \preg_match('/^RESULT (\{.*\})$/m', \implode("\n", $loadOutput), $m) === 1 ? \json_decode($m[1], true) : null;
            if ($loadStatus !== 0 || !\is_array($result) || ($result['failed_cycles'] ?? 1) !== 0 || ($result['non2xx'] ?? 1) !== 0 || ($result['cycles'] ?? 0) <= 0) {
                throw new \RuntimeException("bobbin-crud-load failed:\n" . \implode("\n", $loadOutput));
            }
            $answered = (int) $result['cycles'];
        }
    } finally {
        // Stopped also when the load failed: it holds the benchmark lock (inherited) while it runs.
        $status = \proc_get_status($server);
        \posix_kill($status['pid'], \SIGTERM);
        \proc_close($server);
    }
    // One file per process (a server that forks writes several): the server's count is their sum.
    $files = \glob($out . '.*[0-9]') ?: [];
    $total = null;
    $busiest = [0, ''];
    foreach ($files as $file) {
        $processTotal = Callgrind::total($file);
        $total = $processTotal === null ? $total : ($total ?? 0) + $processTotal;
        if ($processTotal !== null && $processTotal > $busiest[0]) {
            $busiest = [$processTotal, $file];
        }
    }
    @\unlink($out . '.log');
    @\unlink($out);
    if ($keep !== null && $busiest[1] !== '') {
        // The process that served (Workerman's worker, not its master) is the one profiled.
        Callgrind::keep($busiest[1], $keep, (string) $answered);
        \array_map('unlink', \array_filter($files, 'is_file'));
    } else {
        \array_map('unlink', $files);
    }
    if ($total === null) {
        throw new \RuntimeException('callgrind wrote no totals');
    }

    return [$total, $answered];
}

function freePort(): int
{
    $socket = \stream_socket_server('tcp://127.0.0.1:0');
    \assert($socket !== false);
    $port = (int) \substr((string) \strrchr((string) \stream_socket_get_name($socket, false), ':'), 1);
    \fclose($socket);

    return $port;
}

[$a, $answeredA] = countInstructions($root, $appPath, $serveArgs, $fewer, $concurrency, $jit, $keep, $loadGenerator, $databaseUrl);
[$b, $answeredB] = countInstructions($root, $appPath, $serveArgs, $more, $concurrency, $jit, $keep, $loadGenerator, $databaseUrl);
if ($answeredB <= $answeredA) {
    throw new \RuntimeException("The longer run answered no more than the shorter one ($answeredB against $answeredA)");
}
echo \json_encode([
    'root' => $root,
    'app' => $app,
    'server' => $peer ?? 'bobbin',
    'load' => $load,
    'driver' => \getenv('BOBBIN_LOOP_DRIVER') ?: 'default',
    'jit' => $jit,
    ($crud ? 'instructions_per_cycle' : 'instructions_per_request') => (int) \round(($b - $a) / ($answeredB - $answeredA)),
    'instructions' => [$answeredA => $a, $answeredB => $b],
]), "\n";
