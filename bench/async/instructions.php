<?php

declare(strict_types=1);

/*
 * bench/async/instructions.php ROOT [--app=FILE] [--requests=2000,6000] [--concurrency=50] [--jit=tracing|function|no] [--keep=DIR] [--serve-args=ARGS]
 *
 * Instructions per HTTP request of `bin/bobbin serve APP --single-process` from the checkout at
 * ROOT, counted by valgrind's callgrind, so the figure does not move with whatever else the
 * machine does (seconds do). The server runs twice, answering A and then B keep-alive requests
 * of `ab -k -cN`; (instructions(B) - instructions(A)) / (B - A) leaves out start-up, opcache
 * warm-up and shutdown. The loop driver is whatever BOBBIN_LOOP_DRIVER picks; --jit=tracing (the
 * default, as bin/bobbin serves) runs with opcache and the tracing JIT, --jit=function with the
 * function JIT, --jit=no with opcache
 * alone. --keep=DIR keeps both callgrind files there (callgrind_annotate reads them).
 * --serve-args replaces `--single-process` (older checkouts, which served in one process by
 * default, lack that option: --serve-args=).
 *
 * valgrind slows the server ~50x, so every loop turn is a "long stretch of work" to the
 * arrival-time rule (BobbinDriver::arrivalTime(), which then asks the kernel for each socket's
 * receive time): BOBBIN_LOOP_LATE_MS=10000 is set for the server so the count measures what
 * a request costs at native speed. Prints one JSON line.
 *
 * Example: php bench/async/instructions.php . --app=bench/async/hello-nyholm.php
 */

require __DIR__ . '/options.php';
[$root, $options] = benchArguments($argv, 'php bench/async/instructions.php ROOT [--app=FILE] [--requests=A,B] [--concurrency=50] [--jit=tracing|function|no] [--keep=DIR] [--serve-args=ARGS]');
$app = (string) ($options['app'] ?? 'examples/hello.php');
[$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['requests'] ?? '2000,6000')));
$concurrency = (int) ($options['concurrency'] ?? 50);
$jit = (string) ($options['jit'] ?? 'tracing');
if (!\in_array($jit, ['tracing', 'function', 'no'], true)) {
    \fwrite(\STDERR, "--jit is tracing, function or no\n");
    exit(2);
}
$keep = isset($options['keep']) ? (string) $options['keep'] : null;
$serveArgs = \preg_split('/\s+/', \trim((string) ($options['serve-args'] ?? '--single-process')), -1, \PREG_SPLIT_NO_EMPTY) ?: [];
if ($fewer <= 0 || $more <= $fewer) {
    \fwrite(\STDERR, "--requests=A,B needs 0 < A < B\n");
    exit(2);
}
foreach (['valgrind', 'ab'] as $tool) {
    if (\trim((string) \shell_exec('command -v ' . $tool)) === '') {
        \fwrite(\STDERR, "$tool is not installed\n");
        exit(1);
    }
}
$appPath = \str_starts_with($app, '/') ? $app : \dirname(__DIR__, 2) . '/' . $app;

/** Instructions the server executed from start to graceful stop, having answered $requests. */
/** @param list<string> $serveArgs */
function countInstructions(string $root, string $appPath, array $serveArgs, int $requests, int $concurrency, string $jit, ?string $keep): int
{
    $port = freePort();
    $out = \tempnam(\sys_get_temp_dir(), 'bobbin-callgrind-');
    $php = [\PHP_BINARY, '-d', 'opcache.enable_cli=1'];
    if ($jit !== 'no') {
        $php = [...$php, '-d', 'opcache.jit=' . $jit, '-d', 'opcache.jit_buffer_size=64M'];
        if ($keep !== null) {
            // /tmp/perf-PID.map names the JIT's code: bench/async/instructions-by-function.py reads it.
            $php = [...$php, '-d', 'opcache.jit_debug=0x10'];
        }
    }
    $command = [
        'valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--callgrind-out-file=' . $out,
        ...$php, $root . '/bin/bobbin', 'serve', $appPath, ...$serveArgs, '--listen=127.0.0.1:' . $port,
    ];
    $env = \getenv();
    $env['BOBBIN_OPCACHE_RELAUNCHED'] = '1'; // opcache is on the command line already
    $env['BOBBIN_LOOP_LATE_MS'] = '10000';
    $server = \proc_open($command, [1 => ['file', '/dev/null', 'w'], 2 => ['file', $out . '.log', 'w']], $pipes, null, $env);
    \assert(\is_resource($server));
    $deadline = \microtime(true) + 120;
    while (@\fsockopen('127.0.0.1', $port, $code, $message, 1) === false) {
        if (\microtime(true) > $deadline) {
            throw new \RuntimeException('The server did not start under valgrind within 120 s: ' . @\file_get_contents($out . '.log'));
        }
        \usleep(200_000);
    }
    \exec(\sprintf('ab -q -k -c%d -n%d http://127.0.0.1:%d/ 2>&1', $concurrency, $requests, $port), $abOutput, $abStatus);
    if ($abStatus !== 0 || \preg_match('/Complete requests:\s+(\d+)/', \implode("\n", $abOutput), $m) !== 1 || (int) $m[1] !== $requests) {
        throw new \RuntimeException("ab failed:\n" . \implode("\n", $abOutput));
    }
    if (\preg_match('/Failed requests:\s+(\d+)/', \implode("\n", $abOutput), $m) === 1 && (int) $m[1] !== 0) {
        throw new \RuntimeException("ab saw failed requests:\n" . \implode("\n", $abOutput));
    }
    $status = \proc_get_status($server);
    \posix_kill($status['pid'], \SIGTERM);
    \proc_close($server);
    $total = null;
    foreach (\file($out) ?: [] as $line) {
        if (\preg_match('/^(?:summary|totals):\s+(\d+)/', $line, $m) === 1) {
            $total = (int) $m[1];
        }
    }
    @\unlink($out . '.log');
    if ($keep !== null) {
        @\mkdir($keep, 0777, true);
        \rename($out, $keep . '/callgrind.' . $requests);
        $pid = (int) ($status['pid'] ?? 0);
        if (\is_file("/tmp/perf-$pid.map")) {
            \rename("/tmp/perf-$pid.map", $keep . '/perf.map.' . $requests);
        }
    } else {
        \unlink($out);
    }
    if ($total === null) {
        throw new \RuntimeException('callgrind wrote no totals');
    }

    return $total;
}

function freePort(): int
{
    $socket = \stream_socket_server('tcp://127.0.0.1:0');
    \assert($socket !== false);
    $port = (int) \substr((string) \strrchr((string) \stream_socket_get_name($socket, false), ':'), 1);
    \fclose($socket);

    return $port;
}

$a = countInstructions($root, $appPath, $serveArgs, $fewer, $concurrency, $jit, $keep);
$b = countInstructions($root, $appPath, $serveArgs, $more, $concurrency, $jit, $keep);
echo \json_encode([
    'root' => $root,
    'app' => $app,
    'driver' => \getenv('BOBBIN_LOOP_DRIVER') ?: 'default',
    'jit' => $jit,
    'instructions_per_request' => (int) \round(($b - $a) / ($more - $fewer)),
    'instructions' => [$fewer => $a, $more => $b],
]), "\n";
