<?php

declare(strict_types=1);

/*
 * php bench/tls/run.php [--rounds=3] [--duration=3] [--server-cpu=0] [--load-cpu=1] [--key=ec|rsa]
 *
 * HTTPS cost, Bobbin (`bin/bobbin serve examples/hello.php --single-process --tls-cert=… --tls-key=…`,
 * this checkout: one process) beside nginx (one process: `master_process off`, `ssl_protocols
 * TLSv1.2 TLSv1.3`, session cache off, `return 200 "Hello, World!"`) with the same self-signed
 * certificate (--key: ec = ECDSA P-256, certbot's default; rsa = RSA 2048). Each server is
 * pinned to --server-cpu, the load to --load-cpu. Per round and server:
 *
 * - keep-alive: `wrk -t1 -c10` over https (ten established connections): server CPU per request;
 * - new connections: `ab -c10` without -k over https: every request a new TCP connection and a
 *   full handshake (ab resumes no session): server CPU per connection;
 * - the same `ab` and `wrk` over plain HTTP to the same server started without TLS: what a
 *   connection and a request cost without TLS. The difference of the new connections is the
 *   handshake's own cost (its crypto, and for Bobbin PHP's per-connection OpenSSL context), that
 *   of the keep-alive requests what TLS adds to a request.
 *
 * Rounds interleave the servers; the ratio column is the median of per-round ratios Bobbin/nginx.
 * Run it under the machine-wide lock:
 *
 *     flock /tmp/bobbin-bench.lock php bench/tls/run.php
 */

use Bobbin\Bench\ProcessTree;
use Bobbin\Bench\Server\ForegroundNginx;
use Bobbin\Bench\Shell;
use Bobbin\Bench\Summary;

require_once \dirname(__DIR__) . '/lib/autoload.php';

$options = ['rounds' => 3, 'duration' => 3, 'server-cpu' => 0, 'load-cpu' => 1, 'key' => 'ec'];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--(rounds|duration|server-cpu|load-cpu)=(\d+)$/', $argument, $m) === 1) {
        $options[$m[1]] = (int) $m[2];
    } elseif (\preg_match('/^--key=(ec|rsa)$/', $argument, $m) === 1) {
        $options['key'] = $m[1];
    } else {
        \fwrite(\STDERR, "Usage: php bench/tls/run.php [--rounds=3] [--duration=3] [--server-cpu=0] [--load-cpu=1] [--key=ec|rsa]\n");
        exit(2);
    }
}
\ignore_user_abort(true);
$root = \dirname(__DIR__, 2);
$work = "$root/var/bench/tls";
@\mkdir("$work/tmp", 0777, true);
$cert = "$work/{$options['key']}.pem";
$key = "$work/{$options['key']}.key";
$algorithm = $options['key'] === 'ec' ? '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1' : '-newkey rsa:2048';
\exec(\sprintf('openssl req -x509 %s -nodes -days 30 -subj /CN=localhost -keyout %s -out %s 2>&1', $algorithm, \escapeshellarg($key), \escapeshellarg($cert)), $out, $status);
if ($status !== 0) {
    throw new \RuntimeException('openssl req: ' . \implode("\n", $out));
}

/** @var array<string, \Closure(int, bool): list<string>> $servers */
$servers = [
    'bobbin' => static fn (int $port, bool $tls): array => [\PHP_BINARY, "$root/bin/bobbin", 'serve', "$root/examples/hello.php", '--single-process',
        "--listen=127.0.0.1:$port", '--log-level=warning', ...($tls ? ["--tls-cert=$cert", "--tls-key=$key"] : [])],
    'nginx' => static function (int $port, bool $tls) use ($work, $cert, $key): array {
        $listen = $tls ? "listen 127.0.0.1:$port ssl; ssl_certificate $cert; ssl_certificate_key $key; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache off; ssl_session_tickets off;"
            : "listen 127.0.0.1:$port;";

        return ForegroundNginx::command($work, "nginx-$port", $port, <<<HTTP
                keepalive_requests 100000;
                server { $listen location / { default_type text/plain; return 200 "Hello, World!"; } }
            HTTP);
    },
];
$cases = [
    'keep-alive request (https)' => ['tls' => true, 'load' => static fn (int $port, int $cpu, int $seconds): int => wrk($cpu, $seconds, "https://127.0.0.1:$port/")],
    'new connection (https: handshake + 1 request)' => ['tls' => true, 'load' => static fn (int $port, int $cpu, int $seconds): int => ab($cpu, $seconds, "https://127.0.0.1:$port/")],
    'new connection (plain http + 1 request)' => ['tls' => false, 'load' => static fn (int $port, int $cpu, int $seconds): int => ab($cpu, $seconds, "http://127.0.0.1:$port/")],
    'keep-alive request (plain http)' => ['tls' => false, 'load' => static fn (int $port, int $cpu, int $seconds): int => wrk($cpu, $seconds, "http://127.0.0.1:$port/")],
];
$samples = [];
for ($round = 1; $round <= $options['rounds']; $round++) {
    foreach ($servers as $name => $command) {
        foreach ([true, false] as $tls) {
            $port = Shell::freePort();
            $process = \proc_open(['taskset', '-c', (string) $options['server-cpu'], ...$command($port, $tls)], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "$work/$name.log", 'a']], $pipes);
            if (!\is_resource($process)) {
                exit(1);
            }
            $pid = (int) \proc_get_status($process)['pid'];
            try {
                Shell::waitForPort($port);
                foreach ($cases as $case => $spec) {
                    if ($spec['tls'] !== $tls) {
                        continue;
                    }
                    $spec['load']($port, $options['load-cpu'], 1); // warm-up: opcache, JIT
                    $ticks0 = \array_sum(ProcessTree::ownTicks($pid));
                    $requests = $spec['load']($port, $options['load-cpu'], $options['duration']);
                    $cpu = (\array_sum(ProcessTree::ownTicks($pid)) - $ticks0) * 1e4 / \max(1, $requests); // µs (100 ticks a second)
                    $samples[$case][$name]['rps'][] = $requests / $options['duration'];
                    $samples[$case][$name]['cpu'][] = $cpu;
                    \fprintf(\STDERR, "round %d %-6s %-46s %8.0f /s  %8.1f µs CPU each\n", $round, $name, $case, $requests / $options['duration'], $cpu);
                }
            } finally {
                \proc_terminate($process);
                \proc_close($process);
            }
        }
    }
}
$handshake = [];
foreach (\array_keys($servers) as $name) {
    $handshake[$name] = \array_map(static fn (float $https, float $plain): float => $https - $plain,
        $samples['new connection (https: handshake + 1 request)'][$name]['cpu'], $samples['new connection (plain http + 1 request)'][$name]['cpu']);
}
echo "Certificate: {$options['key']}" . ($options['key'] === 'ec' ? ' (ECDSA P-256)' : ' (RSA 2048)') . ", TLS 1.3 negotiated by wrk and ab\n\n";
echo "| case | server | per second | server CPU µs each | Bobbin/nginx per second (median of per-round ratios) | Bobbin/nginx CPU |\n|---|---|---|---|---|---|\n";
foreach ($samples as $case => $byServer) {
    $rpsRatios = \array_map(static fn (float $b, float $n): float => $b / $n, $byServer['bobbin']['rps'], $byServer['nginx']['rps']);
    $cpuRatios = \array_map(static fn (float $b, float $n): float => $b / \max(0.001, $n), $byServer['bobbin']['cpu'], $byServer['nginx']['cpu']);
    foreach ($byServer as $name => $s) {
        \printf("| %s | %s | %.0f | %.1f | %s | %s |\n", $case, $name, Summary::median($s['rps']), Summary::median($s['cpu']),
            $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($rpsRatios)) : '', $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($cpuRatios)) : '');
    }
}
$ratios = \array_map(static fn (float $b, float $n): float => $b / \max(0.001, $n), $handshake['bobbin'], $handshake['nginx']);
foreach ($handshake as $name => $values) {
    \printf("| the handshake itself (https − plain new connection) | %s | | %.1f | | %s |\n", $name, Summary::median($values), $name === 'bobbin' ? \sprintf('%.2fx', Summary::median($ratios)) : '');
}

/** @return int requests answered over ten keep-alive connections */
function wrk(int $cpu, int $seconds, string $url): int
{
    $output = (string) \shell_exec(\sprintf('taskset -c %d wrk -t1 -c10 -d%ds %s 2>&1', $cpu, $seconds, \escapeshellarg($url)));
    if (\preg_match('/(\d+) requests in/', $output, $m) !== 1 || \str_contains($output, 'Non-2xx') || \str_contains($output, 'Socket errors')) {
        throw new \RuntimeException("wrk said: $output");
    }

    return (int) $m[1];
}

/** @return int requests answered, each on a new connection (ab without -k) */
function ab(int $cpu, int $seconds, string $url): int
{
    $output = (string) \shell_exec(\sprintf('taskset -c %d ab -q -l -c10 -t%d -n1000000 %s 2>&1', $cpu, $seconds, \escapeshellarg($url)));
    if (\preg_match('/Complete requests:\s+(\d+)/', $output, $m) !== 1 || \preg_match('/Failed requests:\s+0\b/', $output) !== 1
        || \str_contains($output, 'Non-2xx')) {
        throw new \RuntimeException("ab said: $output");
    }

    return (int) $m[1];
}

