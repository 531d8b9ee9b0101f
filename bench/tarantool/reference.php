<?php

declare(strict_types=1);

/*
 * Bobbin's Tarantool client and MessagePack codec against the pure-PHP reference clients,
 * one request at a time (issue 35): tarantool/client (tarantool-php/client v0.10.1, synchronous,
 * its PurePacker) and rybakit/msgpack v0.9.2, built from their public sources first:
 *
 *   bench/tarantool/build-reference.sh [CLIENT_GIT_DIR MSGPACK_GIT_DIR]
 *   flock /tmp/bobbin-bench.lock php bench/tarantool/reference.php [--only=client,codec,instructions]
 *       [--rounds=9] [--ops=3000] [--requests=select,call] [--count=2000,6000] [--keep=DIR] [--jit=tracing|function]
 *
 * client: one connection each, one request at a time in a plain script (no fiber: the way the
 *   reference runs), against the checkout's Tarantool (scripts/tarantool; or
 *   BOBBIN_BENCH_TARANTOOL_URL). select is a select by primary key of the `bench` space (10,000
 *   tuples {id, 'tuple_' .. id}) by name, call a call of the Lua function bench_get(id) (one
 *   select by key). Each round runs --ops requests with ours and --ops with theirs, the order
 *   alternating round by round; per round the ratios ours/theirs of client CPU (getrusage
 *   user + sys of this process) and of wall time. Reported: the median of the per-round ratios.
 * instructions: the same loops under valgrind's callgrind, A and then B requests after the same
 *   warm-up; (instructions(B) - instructions(A)) / (B - A) per request, user space only (both
 *   clients make the same three system calls per request: write, poll, read). --keep=DIR keeps
 *   the callgrind files and perf maps for bench/async/instructions-by-function.php DIR/VARIANT;
 *   --jit=function compiles each PHP function on its own so that the map names every function
 *   (a coarser JIT than the one measured, but a map of where the instructions go).
 * codec: encode and decode, ours vs rybakit's Packer (PackOptions::FORCE_STR: the same bytes as
 *   ours; the bytes are compared) and BufferUnpacker, per value kind; rounds interleaved, the
 *   median of the per-round time ratios.
 *
 * It relaunches itself once with opcache and the tracing JIT, as `bin/bobbin serve` runs PHP.
 */

use Bobbin\Bench\Callgrind;
use Bobbin\Tarantool\Connection;
use Tarantool\Client\Client;
use Tarantool\Client\Schema\Criteria;

$root = \dirname(__DIR__, 2);
require $root . '/vendor/autoload.php';
require \dirname(__DIR__) . '/lib/autoload.php';
$reference = $root . '/var/bench-tarantool-ref/autoload.php';
if (!\is_file($reference)) {
    \fwrite(\STDERR, "The reference clients are not built: bench/tarantool/build-reference.sh first\n");
    exit(2);
}
require $reference;
Bobbin\Async\Async::installLoopDriver();

$options = \getopt('', ['only::', 'rounds::', 'ops::', 'requests::', 'count::', 'keep::', 'jit::', 'child::', 'url::']);
if (!isset($options['child']) && \getenv('BOBBIN_BENCH_RELAUNCHED') === false && \function_exists('pcntl_exec') && !\filter_var(\ini_get('opcache.enable_cli'), \FILTER_VALIDATE_BOOL)) {
    $settings = [];
    foreach (\Bobbin\Cli\OpcacheRelaunch::SETTINGS as $name => $value) {
        \array_push($settings, '-d', "$name=$value");
    }
    \pcntl_exec(\PHP_BINARY, [...$settings, __FILE__, ...\array_slice($argv, 1)], [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}
\ignore_user_abort(true);

$url = (string) ($options['url'] ?? \getenv('BOBBIN_BENCH_TARANTOOL_URL'));
if ($url === '') {
    $script = \escapeshellarg("$root/scripts/tarantool");
    $url = \trim((string) \shell_exec("$script start >/dev/null 2>&1; $script url"));
}

/** tarantool://user:pass@host:port → the reference client's tcp:// DSN. */
function referenceDsn(string $url): string
{
    $parts = \parse_url($url);
    \assert(\is_array($parts));
    $credentials = isset($parts['user']) ? $parts['user'] . (isset($parts['pass']) ? ':' . $parts['pass'] : '') . '@' : '';

    return \sprintf('tcp://%s%s:%d?tcp_nodelay=true', $credentials, $parts['host'] ?? '127.0.0.1', $parts['port'] ?? 3301);
}

/**
 * The loop of $n requests of $kind for one client; keys cycle through 1..10,000.
 *
 * @return Closure(int): int
 */
function requestLoop(string $client, string $kind, string $url): Closure
{
    $sink = 0;
    if ($client === 'theirs') {
        $tarantool = Client::fromDsn(referenceDsn($url));
        $tarantool->ping();

        return match ($kind) {
            'select' => static function (int $n) use ($tarantool, &$sink): int {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count($tarantool->getSpace('bench')->select(Criteria::key([$i % 10000 + 1])));
                }

                return $sink;
            },
            'call' => static function (int $n) use ($tarantool, &$sink): int {
                for ($i = 0; $i < $n; $i++) {
                    $sink += \count($tarantool->call('bench_get', $i % 10000 + 1));
                }

                return $sink;
            },
            default => throw new \ValueError("unknown request $kind"),
        };
    }
    $connection = Connection::connect($url);
    $connection->ping();

    return match ($kind) {
        'select' => static function (int $n) use ($connection, &$sink): int {
            for ($i = 0; $i < $n; $i++) {
                $sink += \count($connection->select('bench', $i % 10000 + 1));
            }

            return $sink;
        },
        'call' => static function (int $n) use ($connection, &$sink): int {
            for ($i = 0; $i < $n; $i++) {
                $sink += \count($connection->call('bench_get', [$i % 10000 + 1]));
            }

            return $sink;
        },
        default => throw new \ValueError("unknown request $kind"),
    };
}

function cpuSeconds(): float
{
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
}

/** @param list<float> $values */
function median(array $values): float
{
    \sort($values);
    $n = \count($values);

    return $n % 2 === 1 ? $values[\intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2;
}

if (isset($options['child'])) { // under callgrind: warm-up, then --count requests
    [$client, $kind] = \explode(':', (string) $options['child']);
    $loop = requestLoop($client, $kind, $url);
    $loop(1000);
    $loop((int) $options['count']);
    exit(0);
}

$only = \explode(',', (string) ($options['only'] ?? 'client,codec,instructions'));
$rounds = (int) ($options['rounds'] ?? 9);
$ops = (int) ($options['ops'] ?? 3000);
$kinds = \explode(',', (string) ($options['requests'] ?? 'select,call'));
echo '# ', \trim((string) @\file_get_contents($root . '/var/bench-tarantool-ref/VERSIONS')), "\n";

$setup = Connection::connect($url);
$setup->call('bench_reset', [10000]);
$setup->close();

if (\in_array('client', $only, true)) {
    echo "\n| request | ours µs CPU/req | tarantool/client µs CPU/req | CPU ours/theirs (median of rounds) | wall ours/theirs | rounds |\n|---|---|---|---|---|---|\n";
    foreach ($kinds as $kind) {
        $loops = ['ours' => requestLoop('ours', $kind, $url), 'theirs' => requestLoop('theirs', $kind, $url)];
        foreach ($loops as $loop) {
            $loop(1000); // warm-up: opcache, the JIT, the schema caches
        }
        $cpu = $wall = ['ours' => [], 'theirs' => []];
        for ($round = 0; $round < $rounds; $round++) {
            foreach ($round % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'] as $client) {
                $cpuBefore = cpuSeconds();
                $started = \hrtime(true);
                $loops[$client]($ops);
                $wall[$client][] = (\hrtime(true) - $started) / 1e3 / $ops;
                $cpu[$client][] = (cpuSeconds() - $cpuBefore) * 1e6 / $ops;
            }
        }
        $cpuRatios = \array_map(static fn (float $o, float $t): float => $o / $t, $cpu['ours'], $cpu['theirs']);
        $wallRatios = \array_map(static fn (float $o, float $t): float => $o / $t, $wall['ours'], $wall['theirs']);
        \printf(
            "| %s | %.1f | %.1f | %.2fx (%.2f–%.2f) | %.2fx | %d x %d |\n",
            $kind,
            median($cpu['ours']),
            median($cpu['theirs']),
            median($cpuRatios),
            \min($cpuRatios),
            \max($cpuRatios),
            median($wallRatios),
            $rounds,
            $ops,
        );
        unset($loops);
    }
}

if (\in_array('instructions', $only, true)) {
    [$fewer, $more] = \array_map('intval', \explode(',', (string) ($options['count'] ?? '2000,6000')));
    $keep = isset($options['keep']) ? (string) $options['keep'] : null;
    $jit = (string) ($options['jit'] ?? 'tracing');
    echo "\n| request | ours instructions/req | tarantool/client instructions/req | ours/theirs |\n|---|---|---|---|\n";
    foreach ($kinds as $kind) {
        $perRequest = [];
        foreach (['ours', 'theirs'] as $client) {
            $counts = [];
            foreach ([$fewer, $more] as $n) {
                $counts[$n] = countInstructions($url, "$client:$kind", $n, $keep, $jit);
            }
            $perRequest[$client] = ($counts[$more] - $counts[$fewer]) / ($more - $fewer);
        }
        \printf("| %s | %.0f | %.0f | %.2fx |\n", $kind, $perRequest['ours'], $perRequest['theirs'], $perRequest['ours'] / $perRequest['theirs']);
    }
}

if (\in_array('codec', $only, true)) {
    require __DIR__ . '/reference-codec.php';
    codecComparison($rounds);
}

/** User-space instructions of this script as a callgrind child running $variant $count times. */
function countInstructions(string $url, string $variant, int $count, ?string $keep, string $jit): int
{
    $keepDir = $keep === null ? null : $keep . '/' . \str_replace(':', '-', $variant);
    $command = [...Callgrind::php($jit, $keep !== null), __FILE__, '--child=' . $variant, '--count=' . $count, '--url=' . $url];

    return Callgrind::count($command, $keepDir, (string) $count, [...\getenv(), 'BOBBIN_BENCH_RELAUNCHED' => '1']);
}
