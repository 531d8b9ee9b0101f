<?php

declare(strict_types=1);

/*
 * bench/nats/run.php — the NATS client and the jobs' NATS transport (issue 26), against the
 * checkout's nats-server (scripts/nats):
 *
 *   1. publish: COUNT messages of each --sizes (16 B and 1 KB), then a flush (PING/PONG):
 *      messages/s and client CPU per message, this client vs the NATS C client (Debian's
 *      libnats-dev, built from bench/nats/pub.c into var/bench-nats/). No subscriber: the
 *      server's intake is the ceiling both share. Debian's nats-server ships no `nats bench`
 *      (nor the nats CLI).
 *   1b. deliver: a subscriber receives COUNT messages (fewer for large payloads: what the server
 *      may hold for a lagging subscriber stays under its 64 MB max_pending) that the C publisher
 *      sends as fast as it can: this client's Subscription::next() vs the C client's
 *      natsSubscription_NextMsg() (bench/nats/sub.c), messages/s and client CPU per message from
 *      the first message to the last.
 *   2. roundtrip: an empty task submitted and awaited one at a time (µs per task, p50/p99),
 *      over NATS to a `bin/bobbin jobs-worker` and to the local pool (a JobMaster of this
 *      process), both with --job-workers job workers.
 *   3. throughput: TASKS empty tasks, 16 at a time, over the same two, and over a second
 *      jobs-worker with 16 slots (--prefetch=16 - job workers; the default holds 2 per job worker,
 *      and callers beyond offer their task again): tasks/s.
 *
 * Every measure alternates the two sides over --rounds rounds of the same run; medians shown,
 * with the median of the per-round ratios (each round's two sides ran back to back).
 * Relaunches itself once with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 * --url=nats://… uses that server instead of starting the checkout's. Prints Markdown. Run it under the machine's benchmark lock:
 *
 *   flock /tmp/bobbin-bench.lock php bench/nats/run.php [--rounds=5] [--messages=200000]
 *       [--tasks=5000] [--sequential=1000] [--job-workers=2] [--sizes=16,1024] [--url=URL]
 *       [--only=publish,deliver,roundtrip,throughput]
 */

use Bobbin\Async\Async;
use Bobbin\Jobs\Jobs;
use Bobbin\Jobs\JobsConfig;
use Bobbin\Jobs\Nats\NatsJobsConfig;
use Bobbin\Nats\Connection;
use Bobbin\Nats\ConnectionConfig;
use Bobbin\Process\JobMaster;
use Bobbin\Jobs\Security\JobKeys;
use Bobbin\Process\JobPoolConfig;
use Bobbin\Log\StderrLogger;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone
require \dirname(__DIR__) . '/jobs/tasks.php';

if (\getenv('BOBBIN_BENCH_RELAUNCHED') === false && \function_exists('pcntl_exec') && !\filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    \pcntl_exec(\PHP_BINARY, [...$settings, __FILE__, ...\array_slice($argv, 1)], [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}

$options = \getopt('', ['rounds::', 'messages::', 'tasks::', 'sequential::', 'job-workers::', 'only::', 'sizes::', 'url::']);
$rounds = \max(1, (int) ($options['rounds'] ?? 5));
$messages = \max(1000, (int) ($options['messages'] ?? 200_000));
$tasks = \max(100, (int) ($options['tasks'] ?? 5000));
$sequential = \max(100, (int) ($options['sequential'] ?? 1000));
$jobWorkers = \max(1, (int) ($options['job-workers'] ?? 2));
$only = \explode(',', (string) ($options['only'] ?? 'publish,deliver,roundtrip,throughput'));
$sizes = \array_map('intval', \explode(',', (string) ($options['sizes'] ?? '16,1024')));
$root = \dirname(__DIR__, 2);
$script = \escapeshellarg("$root/scripts/nats");
// --url: another checkout's server (an A/B of two checkouts against one server).
$url = isset($options['url']) ? (string) $options['url'] : \trim((string) \shell_exec("$script start >/dev/null 2>&1; $script url"));
if (!\str_starts_with($url, 'nats://')) {
    \fwrite(\STDERR, "scripts/nats start failed\n");
    exit(1);
}

$cpu = static function (): float {
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
};
$median = static function (array $values): float {
    \sort($values);
    $n = \count($values);

    return $n % 2 === 1 ? (float) $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2;
};
$percentile = static function (array $values, float $p): float {
    \sort($values);

    return (float) $values[\min(\count($values) - 1, (int) \floor($p * \count($values)))];
};
$rows = [];
$bootstrap = "$root/bench/jobs/bootstrap.php";
// The local pool first: forked before this process runs its loop or opens a NATS connection.
$pool = JobPoolConfig::create($jobWorkers, $bootstrap);
$master = \array_intersect(['roundtrip', 'throughput'], $only) === [] ? null
    : JobMaster::start($pool, new StderrLogger(\Psr\Log\LogLevel::WARNING, \STDERR));

$cBuilt = static function (string $name) use ($root): bool {
    $binary = "$root/var/bench-nats/$name";
    @\mkdir(\dirname($binary), 0777, true);

    return \is_file('/usr/include/nats/nats.h')
        && (\is_file($binary) && \filemtime($binary) >= \filemtime(__DIR__ . "/$name.c")
            || \exec(\sprintf('gcc -O2 -o %s %s -lnats 2>&1', \escapeshellarg($binary), \escapeshellarg(__DIR__ . "/$name.c")), $out, $code) !== false && $code === 0);
};
$ratioRows = static function (string $what, array $ours, array $c, int $count) use ($median): array {
    // Per round: our rate over the C client's of the same round, and our CPU over its CPU; medians of those.
    $rates = $cpus = [];
    foreach ($ours as $round => [$seconds, $cpuSeconds]) {
        $rates[] = $c[$round][0] / $seconds;
        $cpus[] = $cpuSeconds / $c[$round][1];
    }
    $rate = static fn (array $runs): float => $median(\array_map(static fn (array $r): float => $count / $r[0], $runs));
    $cpuPer = static fn (array $runs): float => $median(\array_map(static fn (array $r): float => $r[1] / $count * 1e9, $runs));

    return [
        ["$what: Bobbin\\Nats", \sprintf('%s msg/s', \number_format($rate($ours))), \sprintf('%.0f ns CPU/msg', $cpuPer($ours))],
        ["$what: NATS C client (libnats)", \sprintf('%s msg/s', \number_format($rate($c))), \sprintf('%.0f ns CPU/msg', $cpuPer($c))],
        ["$what: Bobbin\\Nats / C client, median of per-round ratios", \sprintf('%.2fx the rate', $median($rates)), \sprintf('%.2fx the CPU', $median($cpus))],
    ];
};
$pubBinary = "$root/var/bench-nats/pub";
$subBinary = "$root/var/bench-nats/sub";
$runC = static function (string $binary, string ...$args): array {
    $line = \trim((string) \shell_exec(\escapeshellarg($binary) . ' ' . \implode(' ', \array_map('escapeshellarg', $args))));

    return \array_map('floatval', \explode(' ', $line . ' 0'));
};

if (\in_array('publish', $only, true)) {
    $built = $cBuilt('pub');
    $connection = Connection::connect(ConnectionConfig::fromUrl($url));
    foreach ($sizes as $size) {
        $payload = \str_repeat('x', $size);
        $ours = static function () use ($connection, $payload, $messages, $cpu): array {
            $started = \microtime(true);
            $cpuStarted = $cpu();
            for ($i = 0; $i < $messages; $i++) {
                $connection->publish('bench.pub', $payload);
            }
            $connection->flush(30.0);

            return [\microtime(true) - $started, $cpu() - $cpuStarted];
        };
        $ours(); // warm-up: JIT traces compiled
        $samples = ['ours' => [], 'c' => []];
        for ($round = 0; $round < $rounds; $round++) {
            $samples['ours'][] = $ours();
            if ($built) {
                $samples['c'][] = $runC($pubBinary, $url, 'bench.pub', (string) $messages, (string) $size);
            }
        }
        $what = \sprintf('publish %s B, %s messages + flush', \number_format($size), \number_format($messages));
        if ($built) {
            \array_push($rows, ...$ratioRows($what, $samples['ours'], $samples['c'], $messages));
        } else {
            $rows[] = ["$what: NATS C client", 'not measured: libnats-dev or gcc missing', ''];
        }
    }
    $connection->close();
}

if (\in_array('deliver', $only, true)) {
    // A subscriber receives COUNT messages that the C publisher sends as fast as it can; timed
    // from the first message to the last, on the subscriber's side. The count keeps what the
    // server may have to hold for a subscriber that lags under its 64 MB max_pending.
    if (!$cBuilt('pub') || !$cBuilt('sub')) {
        $rows[] = ['deliver: NATS C client', 'not measured: libnats-dev or gcc missing', ''];
    } else {
        $connection = Connection::connect(ConnectionConfig::fromUrl($url));
        foreach ($sizes as $size) {
            $count = \min($messages, \intdiv(24 * 1024 * 1024, $size + 48));
            $ours = static function () use ($connection, $pubBinary, $url, $count, $size, $cpu): array {
                $subject = 'bench.sub.' . \bin2hex(\random_bytes(4));
                $subscription = $connection->subscribe($subject);
                $connection->flush(10.0);
                $publisher = \proc_open([$pubBinary, $url, $subject, (string) $count, (string) $size], [1 => ['file', '/dev/null', 'w']], $pipes);
                $subscription->next(30.0);
                $started = \microtime(true);
                $cpuStarted = $cpu();
                for ($i = 1; $i < $count; $i++) {
                    $subscription->next(30.0);
                }
                $result = [\microtime(true) - $started, $cpu() - $cpuStarted];
                \assert(\is_resource($publisher));
                \proc_close($publisher);
                $subscription->unsubscribe();

                return $result;
            };
            $c = static function () use ($pubBinary, $subBinary, $url, $count, $size): array {
                $subject = 'bench.sub.' . \bin2hex(\random_bytes(4));
                $subscriber = \proc_open([$subBinary, $url, $subject, (string) $count], [1 => ['pipe', 'w']], $pipes);
                \assert(\is_resource($subscriber));
                \fgets($pipes[1]); // "ready": subscribed
                \shell_exec(\sprintf('%s %s %s %d %d', \escapeshellarg($pubBinary), \escapeshellarg($url), $subject, $count, $size));
                $line = \trim((string) \stream_get_contents($pipes[1]));
                \proc_close($subscriber);

                return \array_map('floatval', \explode(' ', $line . ' 0'));
            };
            $ours(); // warm-up: JIT traces compiled
            $samples = ['ours' => [], 'c' => []];
            for ($round = 0; $round < $rounds; $round++) {
                $samples['ours'][] = $ours();
                $samples['c'][] = $c();
            }
            \array_push($rows, ...$ratioRows(\sprintf('deliver %s B, %s messages from the C publisher', \number_format($size), \number_format($count)), $samples['ours'], $samples['c'], $count));
        }
        $connection->close();
    }
}

if ($master !== null) {
    // Two jobs-workers: the default prefetch (a slot per job worker more: 2 × job workers slots),
    // and one with 16 slots, as many as tasks in flight (the local pool queues them in its socket's backlog).
    $remotes = [];
    $key = \base64_encode(\random_bytes(36)); // the jobs key of this run, shared with the jobs-workers through their environment
    foreach (['NATS' => $jobWorkers, 'NATS, 16 slots' => \max(0, 16 - $jobWorkers)] as $name => $prefetch) {
        $transport = $url . '?subject=bench.jobs.' . \bin2hex(\random_bytes(4));
        $log = (string) \tempnam(\sys_get_temp_dir(), 'bobbin-bench-nats-');
        $process = \proc_open(
            [\PHP_BINARY, "$root/bin/bobbin", 'jobs-worker', '--transport=' . $transport, '--job-workers=' . $jobWorkers, '--prefetch=' . $prefetch, '--job-bootstrap=' . $bootstrap, '--durable-slots=0'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $log, 'w']],
            $pipes,
            null,
            ['BOBBIN_JOBS_KEY' => $key] + \getenv(),
        );
        \assert(\is_resource($process));
        $remotes[$name] = [$process, (int) \proc_get_status($process)['pid'], $log, $transport];
    }
    try {
        foreach ($remotes as [, , $log]) {
            $deadline = \microtime(true) + 20;
            while (!\str_contains((string) \file_get_contents($log), 'Taking jobs from') && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
        }
        $config = new JobsConfig(64, 10.0, 60.0);
        $sides = [
            'local pool' => Jobs::localPool($pool->socketPath, $pool->keys, $config),
        ];
        foreach ($remotes as $name => [, , , $transport]) {
            $sides[$name] = Jobs::nats(NatsJobsConfig::fromUrl($transport), new JobKeys($key), $config);
        }
        foreach ($sides as $jobs) {
            $jobs->map((static function () {
                for ($i = 0; $i < 500; $i++) {
                    yield new \Bobbin\Bench\Jobs\EmptyTask();
                }
            })(), 16); // warm-up: connections made, job workers bootstrapped, JIT traces compiled
        }
        $latency = \array_fill_keys(\array_keys($sides), []);
        $perTask = \array_fill_keys(\array_keys($sides), []);
        $rates = \array_fill_keys(\array_keys($sides), []);
        for ($round = 0; $round < $rounds; $round++) {
            foreach ($sides as $name => $jobs) {
                if (\in_array('roundtrip', $only, true)) {
                    $started = \microtime(true);
                    for ($i = 0; $i < $sequential; $i++) {
                        $t = \hrtime(true);
                        $jobs->submit(new \Bobbin\Bench\Jobs\EmptyTask())->await();
                        $latency[$name][] = (\hrtime(true) - $t) / 1e3;
                    }
                    $perTask[$name][] = (\microtime(true) - $started) / $sequential * 1e6;
                }
                if (\in_array('throughput', $only, true)) {
                    $started = \microtime(true);
                    $jobs->map((static function () use ($tasks) {
                        for ($i = 0; $i < $tasks; $i++) {
                            yield new \Bobbin\Bench\Jobs\EmptyTask();
                        }
                    })(), 16);
                    $rates[$name][] = $tasks / (\microtime(true) - $started);
                }
            }
        }
        if (\in_array('roundtrip', $only, true)) {
            foreach ($sides as $name => $jobs) {
                $rows[] = [\sprintf('empty task, one at a time: %s', $name), \sprintf('%.0f µs/task', $median($perTask[$name])), \sprintf('p50 %.0f µs, p99 %.0f µs', $percentile($latency[$name], 0.5), $percentile($latency[$name], 0.99))];
            }
            $rows[] = ['empty task, one at a time: NATS / local pool', \sprintf('%.2fx the time', $median($perTask['NATS']) / $median($perTask['local pool'])), ''];
        }
        if (\in_array('throughput', $only, true)) {
            foreach ($sides as $name => $jobs) {
                $rows[] = [\sprintf('empty tasks, 16 at a time over %d job workers: %s', $jobWorkers, $name), \sprintf('%s tasks/s', \number_format($median($rates[$name]))), ''];
            }
            foreach (['NATS', 'NATS, 16 slots'] as $name) {
                $rows[] = [\sprintf('empty tasks, 16 at a time: %s / local pool', $name), \sprintf('%.2fx the rate', $median($rates[$name]) / $median($rates['local pool'])), ''];
            }
        }
    } finally {
        foreach ($remotes as [$process, $pid, $log]) {
            \posix_kill($pid, \SIGTERM);
            $deadline = \microtime(true) + 10;
            while (\proc_get_status($process)['running'] && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
            if (\proc_get_status($process)['running']) {
                \posix_kill($pid, \SIGKILL);
            }
            \proc_close($process);
            @\unlink($log);
        }
        $master->stop(5.0);
    }
}

echo "| measure | result | |\n|---|---|---|\n";
foreach ($rows as [$what, $result, $note]) {
    echo "| $what | $result | $note |\n";
}
echo \sprintf("\n%d rounds, alternating; medians. nats-server %s, %d CPUs, PHP %s.\n", $rounds, \trim((string) \shell_exec('nats-server --version 2>/dev/null | sed "s/nats-server: //"')), (int) \trim((string) \shell_exec('nproc')), \PHP_VERSION);
