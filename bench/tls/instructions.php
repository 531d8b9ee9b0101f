<?php

declare(strict_types=1);

/*
 * php bench/tls/instructions.php [--connections=100,300] [--key=ec|rsa]
 *
 * Instructions per new HTTPS connection (a full handshake and one request), counted by
 * valgrind's callgrind so the figure does not move with the machine's load, and where they go:
 * Bobbin (`bin/bobbin serve examples/hello.php --single-process --tls-cert=…`) beside nginx (one
 * process, the configuration of bench/tls/run.php). Each server runs twice under callgrind,
 * answering A and then B connections of `ab -c10` (no keep-alive); (B − A) / (B − A connections)
 * leaves start-up and shutdown out. The rows split the cost by OpenSSL entry point, inclusive:
 * SSL_CTX_new and the certificate and key loading are what PHP's stream layer does for every
 * connection (php_openssl_setup_crypto(): there is no shared SSL_CTX), SSL_do_handshake is the
 * handshake itself. Run it under the machine-wide lock (valgrind keeps a core busy for ~a minute):
 *
 *     flock /tmp/bobbin-bench.lock php bench/tls/instructions.php
 */

use Bobbin\Bench\Server\ForegroundNginx;
use Bobbin\Bench\Shell;

require_once \dirname(__DIR__) . '/lib/autoload.php';

$options = ['connections' => '100,300', 'key' => 'ec'];
foreach (\array_slice($argv, 1) as $argument) {
    if (\preg_match('/^--(connections)=(\d+,\d+)$/', $argument, $m) === 1 || \preg_match('/^--(key)=(ec|rsa)$/', $argument, $m) === 1) {
        $options[$m[1]] = $m[2];
    } else {
        \fwrite(\STDERR, "Usage: php bench/tls/instructions.php [--connections=100,300] [--key=ec|rsa]\n");
        exit(2);
    }
}
[$a, $b] = \array_map('intval', \explode(',', $options['connections']));
$root = \dirname(__DIR__, 2);
$work = "$root/var/bench/tls";
@\mkdir("$work/tmp", 0777, true);
$cert = "$work/{$options['key']}.pem";
$key = "$work/{$options['key']}.key";
if (!\is_file($cert)) {
    $algorithm = $options['key'] === 'ec' ? '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1' : '-newkey rsa:2048';
    \exec(\sprintf('openssl req -x509 %s -nodes -days 30 -subj /CN=localhost -keyout %s -out %s 2>&1', $algorithm, \escapeshellarg($key), \escapeshellarg($cert)));
}
$functions = [
    'SSL_CTX_new' => 'SSL_CTX_new',
    'certificate file' => 'SSL_CTX_use_certificate_chain_file',
    'key file' => 'SSL_CTX_use_PrivateKey_file',
    'SSL_CTX_free' => 'SSL_CTX_free',
    'SSL_do_handshake' => 'SSL_do_handshake',
];
$servers = [
    // opcache and the JIT on the command line, as bin/bobbin would relaunch itself with them
    // (BOBBIN_OPCACHE_RELAUNCHED below: the relaunch would escape valgrind).
    'bobbin' => static fn (int $port): array => [\PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M', "$root/bin/bobbin", 'serve', "$root/examples/hello.php", '--single-process',
        "--listen=127.0.0.1:$port", '--log-level=warning', '--job-workers=0', "--tls-cert=$cert", "--tls-key=$key"], // no job master: its fork would write the same callgrind file
    'nginx' => static fn (int $port): array => ForegroundNginx::command($work, "nginx-callgrind-$port", $port, <<<HTTP
            server {
                listen 127.0.0.1:$port ssl; ssl_certificate $cert; ssl_certificate_key $key;
                ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache off; ssl_session_tickets off;
                location / { default_type text/plain; return 200 "Hello, World!"; }
            }
        HTTP),
];
$results = [];
foreach ($servers as $name => $command) {
    $counts = [];
    foreach ([$a, $b] as $connections) {
        $port = Shell::freePort();
        $out = "$work/callgrind.$name.$connections.out";
        @\unlink($out);
        $process = \proc_open(['valgrind', '--tool=callgrind', '--smc-check=all-non-file', "--callgrind-out-file=$out", ...$command($port)],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "$work/callgrind-$name.log", 'w']], $pipes,
            null, ['BOBBIN_LOOP_LATE_MS' => '10000', 'BOBBIN_OPCACHE_RELAUNCHED' => '1'] + \getenv());
        if (!\is_resource($process)) {
            exit(1);
        }
        Shell::waitForPort($port, 120.0);
        $output = (string) \shell_exec(\sprintf('ab -q -l -c10 -n%d https://127.0.0.1:%d/ 2>&1', $connections, $port));
        if (\preg_match('/Failed requests:\s+0\b/', $output) !== 1) {
            throw new \RuntimeException("ab said: $output");
        }
        \proc_terminate($process);
        \proc_close($process);
        $counts[$connections] = inclusive($out, $functions);
    }
    foreach ($counts[$b] as $label => $instructions) {
        $results[$name][$label] = ($instructions - $counts[$a][$label]) / ($b - $a);
    }
    \fprintf(\STDERR, "%s: %s\n", $name, \json_encode($results[$name]));
}
echo "Instructions per new HTTPS connection (handshake + one request), {$options['key']} certificate, callgrind, ($b − $a connections):\n\n";
echo "| | bobbin | nginx | Bobbin/nginx |\n|---|---|---|---|\n";
foreach (\array_keys($results['bobbin']) as $label) {
    $bobbin = $results['bobbin'][$label];
    $nginx = $results['nginx'][$label] ?? 0.0;
    \printf("| %s | %s | %s | %s |\n", $label, \number_format($bobbin), \number_format($nginx), $nginx > 0 ? \sprintf('%.2fx', $bobbin / $nginx) : '');
}

/**
 * @param array<string, string> $functions label => symbol
 * @return array<string, float> 'total' and each label's inclusive instructions
 */
function inclusive(string $file, array $functions): array
{
    for ($i = 0; $i < 100 && !\is_file($file); $i++) {
        \usleep(100_000);
    }
    $annotated = (string) \shell_exec(\sprintf('callgrind_annotate --inclusive=yes --threshold=100 %s 2>/dev/null', \escapeshellarg($file)));
    $counts = ['total' => 0.0];
    if (\preg_match('/^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m', $annotated, $m) === 1) {
        $counts['total'] = (float) \str_replace(',', '', $m[1]);
    }
    foreach ($functions as $label => $symbol) {
        $counts[$label] = 0.0;
        if (\preg_match('/^\s*([\d,]+) \([\d. ]+%\)\s+\S*:' . \preg_quote($symbol, '/') . ' /m', $annotated, $m) === 1) {
            $counts[$label] = (float) \str_replace(',', '', $m[1]);
        }
    }

    return $counts;
}

