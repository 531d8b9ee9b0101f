<?php

declare(strict_types=1);

/*
 * A Redis pub/sub subscriber, Bobbin's against phpredis (Debian's php8.2-redis), one at a time:
 * client CPU per message (getrusage of the subscriber process), messages per second, and how
 * often the subscriber lost its connection — under 16 B and 1 KB messages and a burst of 100 MB
 * published as fast as the server takes it (Redis's default `client-output-buffer-limit pubsub
 * 32mb 8mb 60` closes a subscriber that lets 32 MB pile up on the server).
 *
 *   flock -o /tmp/bobbin-bench.lock php bench/redis/subscriber.php [--rounds=5] [--small=200000]
 *       [--large=20000] [--burst-mb=100] [--callgrind] [--only=small,large,burst,burst10]
 *
 * A private redis-server (default settings, no persistence) runs under var/bench-redis-sub on a
 * unix socket, pinned with the publisher to CPU 1, and is stopped by its PID at the end. The
 * publisher is redis-benchmark (`-c 1 -P 500 PUBLISH bench PAYLOAD`: as fast as the server takes
 * them; burst10 pipelines 10 at a time, a slower burst); the subscriber is a child
 * process pinned to CPU 0 running this script with --role=subscriber, which counts the messages
 * until a sentinel on `bench:end` (published after the publisher is done) and reports. Rounds
 * interleave the two clients, alternating which goes first; each line is one round, the ratio is
 * Bobbin / phpredis in that round, and the summary gives medians. A disconnect is counted from the
 * subscriber's side (phpredis's RedisException, Bobbin's MessagesMissed) and from the server's log
 * ("closed ... for overcoming of output buffer limits").
 *
 * --callgrind counts instructions per message of both subscribers under valgrind (16 B and 1 KB:
 * two runs of N and 5N messages, the difference divided by 4N, so start-up cancels out); the
 * publisher then paces itself so that valgrind's subscriber is not disconnected.
 *
 * Both clients run with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 */

$root = \dirname(__DIR__, 2);
$phpSettings = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.jit_buffer_size=64M', '-d', 'opcache.jit=tracing'];

$options = \getopt('', ['role:', 'client:', 'socket:', 'rounds::', 'small::', 'large::', 'burst-mb::', 'callgrind', 'only::']);
if (($options['role'] ?? '') === 'subscriber') {
    subscriber((string) $options['client'], (string) $options['socket'], $root);
    exit(0);
}

/** The subscriber process: prints "ready", counts messages until bench:end, prints one JSON line. */
function subscriber(string $client, string $socket, string $root): void
{
    $cpu = static function (): float {
        $u = \getrusage();

        return $u['ru_utime.tv_sec'] + $u['ru_utime.tv_usec'] / 1e6 + $u['ru_stime.tv_sec'] + $u['ru_stime.tv_usec'] / 1e6;
    };
    $report = static function (int $received, int $bytes, int $lost, float $cpuAtReady, ?float $first, string $error = '') use ($cpu): void {
        echo \json_encode([
            'received' => $received, 'bytes' => $bytes, 'lost' => $lost, 'cpu' => $cpu() - $cpuAtReady,
            'wall' => $first === null ? 0.0 : (\hrtime(true) - $first) / 1e9, 'error' => $error,
        ]), "\n";
    };
    $received = 0;
    $bytes = 0;
    $first = null;
    $done = false;
    if ($client === 'phpredis') {
        $redis = new \Redis();
        $redis->connect($socket);
        // Not -1: phpredis reconnects a lost subscriber silently, unsubscribed, and would wait forever.
        $redis->setOption(\Redis::OPT_READ_TIMEOUT, 5);
        $redis->setOption(\Redis::OPT_MAX_RETRIES, 0);
        echo "ready\n"; // SUBSCRIBE goes out before the first read: the publisher waits for the sentinel channel's subscriber count
        $cpuAtReady = $cpu();
        try {
            // phpredis 5.3 leaves subscribe() neither on a false return, nor on an exception, nor
            // on exit(): only when its connection is closed.
            $redis->subscribe(['bench', 'bench:end'], static function (\Redis $redis, string $channel, string $payload) use (&$received, &$bytes, &$first, &$done): void {
                if ($channel === 'bench:end') {
                    $done = true;
                    $redis->close();

                    return;
                }
                $first ??= \hrtime(true);
                $received++;
                $bytes += \strlen($payload);
            });
            $error = 'subscribe() returned';
        } catch (\RedisException $e) {
            $error = $e->getMessage();
        }
        $report($received, $bytes, $done ? 0 : 1, $cpuAtReady, $first, $done ? '' : $error);

        return;
    }
    require $root . '/vendor/autoload.php';
    \Bobbin\Async\Async::installLoopDriver();
    $redis = new \Bobbin\Redis\Client('redis://localhost?unix_socket=' . \rawurlencode($socket));
    $subscriber = $redis->subscribe(['bench', 'bench:end']);
    echo "ready\n";
    $cpuAtReady = $cpu();
    $lost = 0;
    $error = '';
    while (true) {
        $event = $subscriber->receive();
        if ($event instanceof \Bobbin\Redis\Message) {
            if ($event->channel === 'bench:end') {
                break;
            }
            $first ??= \hrtime(true);
            $received++;
            $bytes += \strlen($event->payload);
        } elseif ($event instanceof \Bobbin\Redis\MessagesMissed) {
            $lost++;
            $error = $event->reason;
        }
    }
    $report($received, $bytes, $lost, $cpuAtReady, $first, $error);
    $subscriber->close();
}

$rounds = \max(1, (int) ($options['rounds'] ?? 5));
$small = (int) ($options['small'] ?? 200_000);
$large = (int) ($options['large'] ?? 20_000);
$burstMb = (int) ($options['burst-mb'] ?? 100);
$only = \explode(',', (string) ($options['only'] ?? 'small,large,burst,burst10'));
$callgrind = isset($options['callgrind']);
foreach (['redis-server', 'redis-benchmark', 'taskset', ...($callgrind ? ['valgrind'] : [])] as $tool) {
    if (\trim((string) \shell_exec('command -v ' . $tool)) === '') {
        \fwrite(\STDERR, "$tool is not installed\n");
        exit(1);
    }
}
if (!\extension_loaded('redis')) {
    \fwrite(\STDERR, "phpredis is not loaded (apt-get install php8.2-redis)\n");
    exit(1);
}

// The private server, default limits, on CPU 1.
$home = "$root/var/bench-redis-sub";
@\mkdir($home, 0o755, true);
$socket = "$home/redis.sock";
$log = "$home/redis.log";
@\unlink($socket);
\file_put_contents($log, '');
$server = \proc_open(['taskset', '-c', '1', 'redis-server', '--port', '0', '--unixsocket', $socket, '--save', '', '--appendonly', 'no', '--dir', $home, '--logfile', $log, '--daemonize', 'no'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
\assert(\is_resource($server));
$serverPid = (int) \proc_get_status($server)['pid'];
\pcntl_async_signals(true);
foreach ([\SIGINT, \SIGTERM] as $signal) {
    \pcntl_signal($signal, static fn () => exit(1)); // the shutdown function stops the server
}
\register_shutdown_function(static function () use ($serverPid, $server): void {
    \posix_kill($serverPid, \SIGTERM);
    \proc_close($server);
});
$control = new \Redis();
for ($i = 0; ; $i++) {
    try {
        if (\file_exists($socket) && $control->connect($socket)) {
            break;
        }
    } catch (\RedisException) {
    }
    if ($i > 100) {
        \fwrite(\STDERR, "redis-server did not start: " . \file_get_contents($log) . "\n");
        exit(1);
    }
    \usleep(50_000);
}
$limit = $control->config('GET', 'client-output-buffer-limit');
\printf("redis-server %s, %s; subscriber on CPU 0, server and publisher on CPU 1\n", $control->info('server')['redis_version'], \json_encode($limit));
\exec('taskset -p -c 1 ' . \getmypid() . ' >/dev/null 2>&1');

/**
 * One subscriber run: N messages of $size bytes.
 *
 * @param list<string> $prefix valgrind's command line, or nothing
 * @return array{received: int, bytes: int, lost: int, cpu: float, wall: float, error: string, serverKills: int}
 */
function run(string $client, int $size, int $count, string $socket, string $log, \Redis $control, array $phpSettings, array $prefix = [], int $pipeline = 500): array
{
    $killsBefore = \substr_count((string) \file_get_contents($log), 'output buffer limits');
    $child = \proc_open(
        ['taskset', '-c', '0', ...$prefix, \PHP_BINARY, ...$phpSettings, __FILE__, '--role=subscriber', '--client=' . $client, '--socket=' . $socket],
        [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => \STDERR],
        $pipes,
    );
    \assert(\is_resource($child));
    if (\trim((string) \fgets($pipes[1])) !== 'ready') {
        throw new \RuntimeException("the $client subscriber did not start");
    }
    // Wait until both channels count one subscriber (phpredis subscribes when it starts reading).
    for ($i = 0; $i < 2000 && ($control->pubsub('numsub', ['bench:end'])['bench:end'] ?? 0) < 1; $i++) {
        \usleep(5_000);
    }
    $payload = \str_repeat('x', $size);
    \exec(\sprintf('redis-benchmark -s %s -c 1 -n %d -P %d -q PUBLISH bench %s 2>&1', \escapeshellarg($socket), $count, $pipeline, $payload), $out, $status);
    if ($status !== 0) {
        throw new \RuntimeException('redis-benchmark failed: ' . \implode("\n", $out));
    }
    $control->publish('bench:end', 'end');
    $line = (string) \fgets($pipes[1]);
    \proc_close($child);
    $result = \json_decode($line, true);
    if (!\is_array($result)) {
        throw new \RuntimeException("the $client subscriber reported nothing: $line");
    }
    $result['serverKills'] = \substr_count((string) \file_get_contents($log), 'output buffer limits') - $killsBefore;

    return $result;
}

function median(array $values): float
{
    \sort($values);
    $n = \count($values);

    return $n === 0 ? \NAN : ($n % 2 === 1 ? $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2);
}

$burst = \intdiv($burstMb * 1_048_576, 1024);
$cases = ['small' => [16, $small, 500], 'large' => [1024, $large, 500], 'burst' => [1024, $burst, 500], 'burst10' => [1024, $burst, 10]];
foreach ($cases as $name => [$size, $count, $pipeline]) {
    if (!\in_array($name, $only, true)) {
        continue;
    }
    \printf("\n%s: %d messages of %d B (%.1f MB of payload), PUBLISH pipelined %d at a time\n", $name, $count, $size, $count * $size / 1_048_576, $pipeline);
    $ratios = [];
    $per = ['bobbin' => [], 'phpredis' => []];
    $lost = ['bobbin' => 0, 'phpredis' => 0];
    for ($round = 1; $round <= $rounds; $round++) {
        $order = $round % 2 === 1 ? ['bobbin', 'phpredis'] : ['phpredis', 'bobbin'];
        $r = [];
        foreach ($order as $client) {
            $r[$client] = run($client, $size, $count, $socket, $log, $control, $phpSettings, [], $pipeline);
        }
        $line = \sprintf('  round %d:', $round);
        foreach (['bobbin', 'phpredis'] as $client) {
            $x = $r[$client];
            $lostHere = $x['lost'] > 0 || $x['serverKills'] > 0 || $x['received'] < $count;
            $lost[$client] += $lostHere ? 1 : 0;
            $us = $x['received'] > 0 ? $x['cpu'] / $x['received'] * 1e6 : \NAN;
            if (!$lostHere) {
                $per[$client][] = $us;
            }
            $line .= \sprintf(' %s %.3f µs/msg %s msg/s%s;', $client, $us, \number_format($x['wall'] > 0 ? $x['received'] / $x['wall'] : 0), $lostHere ? \sprintf(' DISCONNECTED (got %d, server kills %d: %s)', $x['received'], $x['serverKills'], $x['error']) : '');
        }
        // redis-benchmark sends whole pipelines: a few more than $count messages.
        if ($r['bobbin']['lost'] + $r['bobbin']['serverKills'] + $r['phpredis']['lost'] + $r['phpredis']['serverKills'] === 0 && $r['bobbin']['received'] >= $count && $r['phpredis']['received'] >= $count) {
            $ratios[] = ($r['bobbin']['cpu'] / $r['bobbin']['received']) / ($r['phpredis']['cpu'] / $r['phpredis']['received']);
            $line .= \sprintf(' ratio %.2f', \end($ratios));
        }
        echo $line, "\n";
    }
    \printf("  median: bobbin %.3f µs/msg, phpredis %.3f µs/msg, ratio %.2f (rounds %s); disconnected runs: bobbin %d/%d, phpredis %d/%d\n", median($per['bobbin']), median($per['phpredis']), median($ratios), \implode(' ', \array_map(static fn (float $x): string => \sprintf('%.2f', $x), $ratios)), $lost['bobbin'], $rounds, $lost['phpredis'], $rounds);
}

if ($callgrind) {
    echo "\ninstructions per message under callgrind (N and 5N messages, the difference over 4N)\n";
    foreach ([[16, 4_000], [1024, 2_000]] as [$size, $n]) {
        $perClient = [];
        foreach (['bobbin', 'phpredis'] as $client) {
            $counts = [];
            foreach ([$n, 5 * $n] as $count) {
                $out = \tempnam(\sys_get_temp_dir(), 'bobbin-sub-callgrind-');
                run($client, $size, $count, $socket, $log, $control, $phpSettings, ['valgrind', '--quiet', '--tool=callgrind', '--smc-check=all-non-file', '--callgrind-out-file=' . $out], 20);
                \preg_match('/^(?:summary|totals): (\d+)/m', (string) \file_get_contents($out), $m);
                $counts[] = (int) ($m[1] ?? 0);
                @\unlink($out);
            }
            $perClient[$client] = ($counts[1] - $counts[0]) / (4 * $n);
        }
        \printf("  %5d B: bobbin %s, phpredis %s instructions per message, ratio %.2f\n", $size, \number_format($perClient['bobbin']), \number_format($perClient['phpredis']), $perClient['bobbin'] / $perClient['phpredis']);
    }
}
