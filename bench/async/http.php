<?php

declare(strict_types=1);

/*
 * bench/async/http.php ROOT [--app=FILE] [--idle=N] [--connections=50] [--duration=5] [--server-cpu=0] [--load-cpu=1]
 *                          [--crud --database-url=URL --database-cpu=CPUS|none] [--heap] [--memory-limit=SIZE] [--settle=S] [--syscalls]
 *                          [--serve-arg=OPTION]
 *
 * With --crud: `apps/aircraft/server.php` against the PostgreSQL at URL (default: this
 * checkout's `scripts/pg url`) under bench/loadgen's bobbin-crud-load (50 connections, each
 * running POST, GET, PUT, DELETE), and the figure is server CPU per CRUD cycle. The embedded
 * PostgreSQL (postmaster and every backend) is pinned to --database-cpu (default: the load
 * generator's CPU, as bench/run does) for the run and unpinned after; --database-cpu=none leaves
 * it to the scheduler, which puts backends on the server's core too, so that the server's CPU
 * then also carries sharing its core with them. A --database-url of another server is not
 * pinned (the line says database_pinned: false).
 *
 * Server CPU per request of `bin/bobbin serve examples/hello.php --workers=1 [--single-process]` from the checkout
 * at ROOT, pinned to one core (taskset), under `wrk -t1 -cN -dS` pinned to the other, with
 * --idle=N more keep-alive connections held open and silent meanwhile (each sent one request
 * first, so the server holds them as idle keep-alive connections). The loop driver is whatever
 * BOBBIN_LOOP_DRIVER in the environment picks. Prints one JSON line.
 *
 * With --heap the server runs bench/async/hello-heap.php (the same answer, plus GET /heap: its PHP
 * heap) and the line adds what each idle connection costs: PHP heap (memory_get_usage() after a
 * cycle collection) and resident memory (VmRSS), measured before they were opened and --settle
 * seconds (0.2) after.
 * p99_ms is wrk's 99th-percentile latency of the busy connections' requests.
 *
 * CPU is utime + stime from /proc/PID/stat (kernel_share: stime's part) over the wrk run only (the idle connections are
 * opened and answered before it starts). The idle connections are held by a child process
 * (this script with --hold=PORT:N): wrk inherits the descriptors of whoever starts it, and its
 * event loop refuses descriptor numbers past what it sized itself for.
 *
 * --syscalls counts the server's system calls over the same run with `perf stat` on the
 * syscalls:sys_enter_* tracepoints (kernel counters, no ptrace stop per call, so the run keeps
 * its pace) and adds per request (per CRUD cycle): syscalls_per_unit, the calls by name, and
 * waits_per_unit, the calls that wait for readiness (select, epoll_wait, poll): loop turns;
 * context_switches_per_unit and page_faults_per_unit (perf's software events) likewise. An
 * unsaturated server's CPU per request follows its turns per request, which is why these are
 * worth having beside the CPU figure.
 */

if (\preg_match('/^--hold=(\d+):(\d+)$/', $argv[1] ?? '', $hold) === 1) {
    $held = [];
    for ($i = 0; $i < (int) $hold[2]; $i++) {
        $held[] = idleConnection((int) $hold[1]);
    }
    echo "held\n";
    \fgets(\STDIN); // until the parent closes the pipe
    foreach ($held as $socket) {
        \stream_set_blocking($socket, false);
        $unexpected = \fread($socket, 100);
        if (\feof($socket) || $unexpected !== '') {
            echo 'an idle connection was closed or spoke during the run: ' . \json_encode($unexpected), "\n";
            break;
        }
    }
    exit(0);
}

require __DIR__ . '/options.php';
require \dirname(__DIR__) . '/lib/autoload.php';
[$root, $options] = benchArguments($argv, 'php bench/async/http.php ROOT [--app=FILE] [--idle=N] [--connections=50] [--duration=5] [--server-cpu=0] [--load-cpu=1] [--crud --database-url=URL --database-cpu=CPUS|none] [--heap] [--memory-limit=SIZE] [--settle=S] [--syscalls] [--serve-arg=OPTION]');
$crud = isset($options['crud']);
$heap = isset($options['heap']) && !$crud;
$databaseUrl = \is_string($options['database-url'] ?? null) ? $options['database-url'] : \trim((string) \shell_exec(\escapeshellarg(\dirname(__DIR__, 2) . '/scripts/pg') . ' url'));
$idle = (int) ($options['idle'] ?? 0);
$connections = (int) ($options['connections'] ?? 50);
$duration = (int) ($options['duration'] ?? 5);
$serverCpu = (string) ($options['server-cpu'] ?? '0');
$loadCpu = (string) ($options['load-cpu'] ?? '1');
$databaseCpu = (string) ($options['database-cpu'] ?? $loadCpu);
$database = new Bobbin\Bench\Database(\dirname(__DIR__, 2));

function freePort(): int
{
    $probe = \stream_socket_server('tcp://127.0.0.1:0');
    \assert($probe !== false);
    $name = (string) \stream_socket_get_name($probe, false);
    \fclose($probe);

    return (int) \substr($name, (int) \strrpos($name, ':') + 1);
}

/** @return float seconds of CPU (user + system) the process has used */
function processCpu(int $pid): float
{
    return \array_sum(processCpuSplit($pid));
}

/** @return array{float, float} seconds of CPU the process has used in user space and in the kernel */
function processCpuSplit(int $pid): array
{
    $stat = (string) \file_get_contents("/proc/$pid/stat");
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    $fields = \explode(' ', \substr($stat, (int) \strrpos($stat, ')') + 2));

    return [(int) $fields[11] / 100, (int) $fields[12] / 100]; // USER_HZ
}

/** @return resource a keep-alive connection that has had one request answered */
function idleConnection(int $port)
{
    $socket = \stream_socket_client("tcp://127.0.0.1:$port", $code, $message, 5);
    if ($socket === false) {
        throw new \RuntimeException("connect: $message");
    }
    \fwrite($socket, "GET / HTTP/1.1\r\nHost: bench\r\n\r\n");
    $response = '';
    while (!\str_contains($response, 'Hello, World!')) {
        $chunk = \fread($socket, 8192);
        if ($chunk === false || ($chunk === '' && \feof($socket))) {
            throw new \RuntimeException('the server closed an idle connection before answering');
        }
        $response .= $chunk;
    }

    return $socket;
}

/** The server's PHP heap in bytes, from bench/async/hello-heap.php's GET /heap. */
function serverHeap(int $port): int
{
    $body = (string) @\file_get_contents("http://127.0.0.1:$port/heap");
    if (\preg_match('/^\d+$/', $body) !== 1) {
        throw new \RuntimeException('GET /heap said: ' . $body);
    }

    return (int) $body;
}

/** Resident memory of the process in KiB (VmRSS). */
function residentKib(int $pid): int
{
    return \preg_match('/^VmRSS:\s+(\d+) kB/m', (string) \file_get_contents("/proc/$pid/status"), $m) === 1 ? (int) $m[1] : 0;
}

/** @return array{0: resource, 1: string} perf stat counting PID's system calls into a file */
function startSyscallCount(int $pid): array
{
    $file = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-syscalls-');
    $perf = \proc_open(['perf', 'stat', '-x', ',', '-e', 'syscalls:sys_enter_*,context-switches,page-faults', '-p', (string) $pid, '-o', $file], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
    if (!\is_resource($perf)) {
        throw new \RuntimeException('--syscalls needs perf (Debian: linux-perf)');
    }
    \usleep(300_000); // perf opens one counter per tracepoint before it counts

    return [$perf, $file];
}

/**
 * @param array{0: resource, 1: string} $counter
 * @return array<string, int> calls by name
 */
function stopSyscallCount(array $counter): array
{
    [$perf, $file] = $counter;
    \proc_terminate($perf, \SIGINT);
    \proc_close($perf);
    $calls = [];
    foreach (\file($file, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
        $fields = \explode(',', $line);
        if (\count($fields) > 2 && \ctype_digit($fields[0]) && \preg_match('/sys_enter_(\w+)$|^(context-switches|page-faults)$/', $fields[2], $name) === 1 && (int) $fields[0] > 0) {
            $calls[$name[1] !== '' ? $name[1] : $name[2]] = (int) $fields[0];
        }
    }
    @\unlink($file);
    if ($calls === []) {
        throw new \RuntimeException('perf stat counted no system calls (is perf_event_paranoid above 2?)');
    }

    return $calls;
}

/**
 * @param array<string, int> $calls
 * @return array<string, mixed>
 */
function syscallsPerUnit(array $calls, int $units): array
{
    $events = \array_intersect_key($calls, ['context-switches' => 0, 'page-faults' => 0]);
    $calls = \array_diff_key($calls, $events);
    \arsort($calls);
    $perUnit = \array_map(static fn (int $count): float => \round($count / \max(1, $units), 2), $calls);
    $waits = \array_intersect_key($calls, \array_flip(['select', 'pselect6', 'epoll_wait', 'epoll_pwait', 'poll', 'ppoll']));

    return [
        'syscalls_per_unit' => \round(\array_sum($calls) / \max(1, $units), 2),
        'waits_per_unit' => \round(\array_sum($waits) / \max(1, $units), 3),
        'syscalls_by_name' => \array_filter($perUnit, static fn (float $count): bool => $count >= 0.01),
        'context_switches_per_unit' => \round(($events['context-switches'] ?? 0) / \max(1, $units), 3),
        'page_faults_per_unit' => \round(($events['page-faults'] ?? 0) / \max(1, $units), 3),
    ];
}

$port = freePort();
$log = \tempnam(\sys_get_temp_dir(), 'bobbin-bench-');
// --app=FILE (relative to this checkout, or absolute): the same application for every ROOT, as
// bench/async/compare.php needs across commits whose examples differ.
$app = isset($options['app']) ? (\str_starts_with((string) $options['app'], '/') ? (string) $options['app'] : \dirname(__DIR__, 2) . '/' . $options['app'])
    : ($crud ? $root . '/apps/aircraft/server.php' : ($heap ? __DIR__ . '/hello-heap.php' : $root . '/examples/hello.php'));
$command = ['taskset', '-c', $serverCpu, \PHP_BINARY, $root . '/bin/bobbin', 'serve', $app,
    '--workers=1', '--listen=127.0.0.1:' . $port, '--max-connections=' . ($idle + $connections + 100), '--log-level=notice'];
if (isset($options['memory-limit'])) {
    $command[] = '--memory-limit=' . $options['memory-limit'];
}
if (isset($options['serve-arg'])) {
    // One more option for `bin/bobbin serve` (--serve-arg=--job-workers=0).
    $command[] = (string) $options['serve-arg'];
}
if (\str_contains((string) @\file_get_contents($root . '/src/Cli/ServeCommand.php'), "'single-process'")) {
    // Newer checkouts supervise even one worker; the CPU read below is this one process's.
    $command[] = '--single-process';
}
$databasePinned = $crud && $databaseCpu !== 'none' && !isset($options['database-url']) && \is_dir('/proc/' . $database->postmasterPid());
if ($databasePinned) {
    $database->pin($databaseCpu);
}
$server = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'w']], $pipes, null, [...\getenv(), 'DATABASE_URL' => $databaseUrl]);
if (!\is_resource($server)) {
    exit(1);
}
$pid = (int) \proc_get_status($server)['pid'];
try {
    for ($attempt = 0; ($probe = @\stream_socket_client("tcp://127.0.0.1:$port", $code, $message, 1)) === false; $attempt++) {
        if ($attempt > 100) {
            throw new \RuntimeException('the server did not start: ' . \file_get_contents($log));
        }
        \usleep(50_000);
    }
    \fclose($probe);
    $holder = null;
    $memory = [];
    if ($heap) {
        for ($i = 0; $i < 200; $i++) {
            serverHeap($port); // warm up: what every connection's first request allocates once
        }
        $memory = ['heap' => serverHeap($port), 'rss' => residentKib($pid)];
    }
    if ($idle > 0) {
        $holder = \proc_open(['taskset', '-c', $loadCpu, \PHP_BINARY, __FILE__, "--hold=$port:$idle"], [0 => ['pipe', 'r'], 1 => ['pipe', 'w']], $holderPipes);
        \assert(\is_resource($holder));
        if (\trim((string) \fgets($holderPipes[1])) !== 'held') {
            throw new \RuntimeException('the idle connections could not be opened');
        }
    }
    // --settle=S: let the idle connections sit (a worker parks connections idle for 2 s).
    \usleep((int) (1e6 * (float) ($options['settle'] ?? 0.2)));
    if ($memory !== [] && $idle > 0) {
        $memory = [
            'heap_bytes_per_idle' => \round((serverHeap($port) - $memory['heap']) / $idle),
            'rss_kib_per_idle' => \round((residentKib($pid) - $memory['rss']) / $idle, 2),
        ];
    }

    $syscallCounter = isset($options['syscalls']) ? startSyscallCount($pid) : null;
    $splitBefore = processCpuSplit($pid);
    $cpuBefore = \array_sum($splitBefore);
    if ($crud) {
        $loadgen = \dirname(__DIR__) . '/loadgen/build/bobbin-crud-load';
        if (!\is_executable($loadgen)) {
            \shell_exec('make -s -C ' . \escapeshellarg(\dirname(__DIR__) . '/loadgen'));
        }
        $output = (string) \shell_exec(\sprintf(
            'taskset -c %s %s --url=http://127.0.0.1:%d --connections=%d --duration=%d --nonce=%s 2>&1',
            \escapeshellarg($loadCpu),
            \escapeshellarg($loadgen),
            $port,
            $connections,
            $duration,
            \uniqid(),
        ));
        $cpu = processCpu($pid) - $cpuBefore;
        $result = \preg_match('/^RESULT (\{.*\})$/m', $output, $r) === 1 ? \json_decode($r[1], true) : null;
        if (!\is_array($result)) {
            throw new \RuntimeException("bobbin-crud-load said:\n$output");
        }
        $m = [1 => $result['cycles'], 2 => $result['seconds']];
        $p99 = isset($result['p99_ms']) ? (float) $result['p99_ms'] : null;
        $errors = ($result['failed_cycles'] ?? 0) > 0 ? 'failed cycles: ' . $result['failed_cycles'] : '';
    } else {
        $output = (string) \shell_exec(\sprintf(
            'taskset -c %s wrk -t1 -c%d -d%ds --latency http://127.0.0.1:%d/ 2>&1',
            \escapeshellarg($loadCpu),
            $connections,
            $duration,
            $port,
        ));
        $cpu = processCpu($pid) - $cpuBefore;
        if (\preg_match('/(\d+) requests in ([\d.]+)s/', $output, $m) !== 1) {
            throw new \RuntimeException("wrk said:\n$output");
        }
        $p99 = \preg_match('/^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m', $output, $l) === 1 ? (float) $l[1] * ['us' => 0.001, 'ms' => 1.0, 's' => 1000.0][$l[2]] : null;
        $errors = \preg_match('/Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)/', $output, $e) === 1 ? $e[0] : '';
    }
    $requests = (int) $m[1];
    $splitAfter = processCpuSplit($pid);
    $syscalls = $syscallCounter === null ? [] : syscallsPerUnit(stopSyscallCount($syscallCounter), $requests);
    if ($holder !== null) {
        \fclose($holderPipes[0]);
        $errors .= \trim((string) \stream_get_contents($holderPipes[1]));
        \proc_close($holder);
    }
    $capped = \preg_match('/allows only (\d+) connections/', (string) \file_get_contents($log), $c) === 1 ? (int) $c[1] : null;
    echo \json_encode([
        'driver' => \getenv('BOBBIN_LOOP_DRIVER') ?: 'default', 'idle' => $idle, 'connections' => $connections,
        'requests' => $requests, 'req_per_s' => \round($requests / (float) $m[2]),
        ($crud ? 'cpu_us_per_crud' : 'cpu_us_per_request') => \round($cpu / \max(1, $requests) * 1e6, 2), 'server_cpu_s' => $cpu,
        'kernel_share' => \round(($splitAfter[1] - $splitBefore[1]) / \max(0.01, $cpu), 3),
        'max_connections_lowered_to' => $capped, ...($crud ? ['database_pinned' => $databasePinned ? $databaseCpu : false] : []), 'p99_ms' => $p99, ...$memory, ...$syscalls, 'errors' => \trim($errors),
    ]), "\n";
} finally {
    \proc_terminate($server, \SIGTERM);
    for ($i = 0; $i < 100 && \proc_get_status($server)['running']; $i++) {
        \usleep(50_000);
    }
    if (\proc_get_status($server)['running']) {
        \proc_terminate($server, \SIGKILL);
    }
    \proc_close($server);
    @\unlink($log);
    if ($databasePinned) {
        $database->pin('0-' . (Bobbin\Bench\Machine::cpuCount() - 1));
    }
}
