<?php

declare(strict_types=1);

/*
 * bench/async/syscalls.php ROOT [--peer=swoole|workerman|amphp] [--app=FILE] [--requests=20000] [--concurrency=50]
 *
 * System calls per plaintext keep-alive request, by name: `bin/bobbin serve APP --single-process`
 * from the checkout at ROOT (examples/hello.php unless --app), or a peer's
 * bench/peers/<peer>/hello.php (bench/peers/build first), started with the settings bin/bobbin
 * relaunches itself with. After a warm-up of 2,000 requests, `strace -c -f` is attached to every
 * process of the server for exactly --requests requests of `ab -k -cN`, so start-up and shutdown
 * are not counted. strace stops the server at every call: its counts are exact, its timings are
 * not a server's, and are left out. Prints one JSON line.
 */

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Server\BobbinServer;
use Bobbin\Bench\Server\PeerServer;
use Bobbin\Bench\Shell;

require __DIR__ . '/options.php';
require \dirname(__DIR__) . '/lib/autoload.php';
[$root, $options] = benchArguments($argv, 'php bench/async/syscalls.php ROOT [--peer=swoole|workerman|amphp] [--app=FILE] [--requests=20000] [--concurrency=50]');
$root = \rtrim((string) \realpath($root), '/');
$peer = isset($options['peer']) ? (string) $options['peer'] : null;
$requests = (int) ($options['requests'] ?? 20000);
$concurrency = (int) ($options['concurrency'] ?? 50);
foreach (['strace', 'ab'] as $tool) {
    if (!Shell::hasProgram($tool)) {
        \fwrite(\STDERR, "$tool is not installed\n");
        exit(1);
    }
}

// strace stops the server at every call, so each loop turn becomes a "long stretch of work" to
// Bobbin's arrival-time rule (BobbinDriver::arrivalTime(), a getsockopt(TCP_INFO) per request
// then): as bench/async/instructions.php does, the rule's threshold is raised so that the count
// is what a request costs at native speed. bench/async/http.php --syscalls counts with perf at
// native speed, where the rule does what it does.
$server = $peer === null
    ? BobbinServer::start($root, 'bobbin', (string) ($options['app'] ?? 'examples/hello.php'), null, 1, ['BOBBIN_LOOP_LATE_MS' => '10000'], '/')
    : PeerServer::start($root, $peer, 'hello', null, [], '/');
$out = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-strace-');
try {
    $ab = static function (int $n) use ($server, $concurrency): void {
        $result = Shell::run(['ab', '-q', '-k', '-c' . $concurrency, '-n' . $n, $server->baseUrl() . '/'], null, 300.0);
        if ($result->exitCode !== 0 || \preg_match('/Complete requests:\s+(\d+)/', $result->stdout, $m) !== 1 || (int) $m[1] !== $n
            || (\preg_match('/Failed requests:\s+(\d+)/', $result->stdout, $f) === 1 && (int) $f[1] !== 0)) {
            throw new \RuntimeException("ab failed:\n" . $result->stdout . $result->stderr);
        }
    };
    $ab(2000);
    $pids = ProcessTree::expand($server->rootPids());
    $command = ['strace', '-c', '-f', '-qq', '-o', $out];
    foreach ($pids as $pid) {
        \array_push($command, '-p', (string) $pid);
    }
    $strace = Shell::start($command);
    \usleep(500_000); // attached (strace -p returns to its loop at once; half a second is ample)
    $ab($requests);
    $strace->signal(\SIGINT);
    $strace->wait(30.0);
} finally {
    $server->stop();
}
$calls = [];
foreach (\file($out) ?: [] as $line) {
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (\preg_match('/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)\s*$/', $line, $m) === 1 && $m[2] !== 'total') {
        $calls[$m[2]] = \round((int) $m[1] / $requests, 3);
    }
}
@\unlink($out);
\arsort($calls);
echo \json_encode([
    'server' => $peer ?? 'bobbin',
    'requests' => $requests,
    'concurrency' => $concurrency,
    'processes' => \count($pids),
    'syscalls_per_request' => \round(\array_sum($calls), 3),
    'by_name' => $calls,
]), "\n";
