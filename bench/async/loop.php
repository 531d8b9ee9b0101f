<?php

declare(strict_types=1);

/*
 * bench/async/loop.php ROOT [--case=pingpong|timers] [--pairs=N] [--idle=N] [--rounds=N] [--timeout]
 *
 * A loop micro-benchmark on the checkout at ROOT (its vendor/autoload.php, so an old checkout
 * can be measured beside this one), through the public API only (Async, StreamWatcher), on
 * whatever driver BOBBIN_LOOP_DRIVER picks. Prints one JSON line: CPU µs per operation.
 *
 *  pingpong: N socket pairs, a fiber at each end, a byte bounced back and forth ROUNDS times per
 *            pair (an operation is one round trip: two writes, two reads, two waits); --idle=N
 *            more pairs whose reader waits for ever (idle keep-alive connections); --timeout
 *            gives every wait a timeout, as a server's reads have (a timer armed and cancelled
 *            per wait).
 *  timers:   N fibers each sleeping Async::delay(0) ROUNDS times beside --idle=N idle waits
 *            (an operation is one delay).
 */

require __DIR__ . '/options.php';
[$root, $options] = benchArguments($argv, 'php bench/async/loop.php ROOT [--case=pingpong|timers] [--pairs=N] [--idle=N] [--rounds=N] [--timeout]');
$case = (string) ($options['case'] ?? 'pingpong');
$pairs = (int) ($options['pairs'] ?? 50);
$idle = (int) ($options['idle'] ?? 0);
$rounds = (int) ($options['rounds'] ?? 2000);
$timeout = isset($options['timeout']) ? 30.0 : null;

require $root . '/vendor/autoload.php';
if (\method_exists(\Bobbin\Async\Async::class, 'installLoopDriver')) {
    \Bobbin\Async\Async::installLoopDriver(); // older checkouts installed it from their autoloader
}

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Async\StreamWatcher;
use Revolt\EventLoop;

/** @return array{resource, resource} */
function socketPair(): array
{
    $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
    \assert(\is_array($pair));
    foreach ($pair as $socket) {
        \stream_set_blocking($socket, false);
        \stream_set_read_buffer($socket, 0);
    }

    return $pair;
}

function cpuSeconds(): float
{
    $usage = \getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
}

$idlePairs = [];
$idleWaits = [];
for ($i = 0; $i < $idle; $i++) {
    $idlePairs[] = [$reader] = socketPair();
    $watcher = new StreamWatcher($reader);
    $idleWaits[] = Async::run(static function () use ($watcher): void {
        try {
            $watcher->awaitReadable();
        } catch (\Throwable) {
            // closed at the end
        }
    });
}

$tasks = [];
if ($case === 'pingpong') {
    for ($i = 0; $i < $pairs; $i++) {
        [$a, $b] = socketPair();
        $tasks[] = Async::run(static function () use ($a, $rounds, $timeout): void {
            $watcher = new StreamWatcher($a);
            for ($n = 0; $n < $rounds; $n++) {
                \fwrite($a, 'x');
                while (\fread($a, 1) === '') {
                    $watcher->awaitReadable($timeout);
                }
            }
            $watcher->close();
        });
        $tasks[] = Async::run(static function () use ($b, $rounds, $timeout): void {
            $watcher = new StreamWatcher($b);
            for ($n = 0; $n < $rounds; $n++) {
                while (\fread($b, 1) === '') {
                    $watcher->awaitReadable($timeout);
                }
                \fwrite($b, 'y');
            }
            $watcher->close();
        });
    }
    $operations = $pairs * $rounds;
} elseif ($case === 'timers') {
    for ($i = 0; $i < $pairs; $i++) {
        $tasks[] = Async::run(static function () use ($rounds): void {
            for ($n = 0; $n < $rounds; $n++) {
                Async::delay(0.0);
            }
        });
    }
    $operations = $pairs * $rounds;
} else {
    \fwrite(\STDERR, "Unknown case $case\n");
    exit(2);
}

Async::delay(0.0); // the idle waits are in place
$cpu = cpuSeconds();
$wall = \hrtime(true);
Future::awaitAll($tasks);
$wall = (\hrtime(true) - $wall) / 1e9;
$cpu = cpuSeconds() - $cpu;

foreach ($idlePairs as [$reader, $writer]) {
    \fwrite($writer, 'z');
}
Future::awaitAll($idleWaits);

$driver = EventLoop::getDriver();
$poller = \method_exists($driver, 'poller') ? $driver->poller()::class : '';
echo \json_encode([
    'case' => $case, 'driver' => $driver::class, 'poller' => $poller, 'pairs' => $pairs, 'idle' => $idle,
    'operations' => $operations, 'cpu_us_per_op' => \round($cpu / $operations * 1e6, 3), 'wall_s' => \round($wall, 3),
]), "\n";
