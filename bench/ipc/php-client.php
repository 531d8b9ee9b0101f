<?php

declare(strict_types=1);

/*
 * One PHP benchmark run against a running bobbin-ipcd; prints "<requests/s>".
 * usage: php php-client.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY blocking|fiber|fibers:N [WARMUP]
 *
 * WARMUP (default 0) requests run the same way before the clock starts, so the tracing JIT has
 * compiled the loop (a server is measured warm; the C client needs no warm-up). With fibers:N
 * every fiber runs its share of the warm-up, then all wait at one barrier and the clock starts
 * when they are released, and stops when the last fiber got its last answer: creating and
 * destroying the fibers (a few us each) is not part of the request rate.
 */

use Bobbin\Async\Async;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcClient;
use Bobbin\Ipc\ShmClient;
use Bobbin\Ipc\SocketClient;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

if ($argc !== 8 && $argc !== 9) {
    \fwrite(\STDERR, "usage: php php-client.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY blocking|fiber|fibers:N [WARMUP]\n");
    exit(2);
}
[, $channel, $socket, $port, $size, $requests, $every, $mode] = $argv;
$warmup = (int) ($argv[8] ?? 0);
$size = (int) $size;
$requests = (int) $requests;
$every = (int) $every;

$client = match ($channel) {
    'unix' => new SocketClient(Endpoint::unix($socket)),
    'tcp' => new SocketClient(Endpoint::tcp('127.0.0.1', (int) $port)),
    'shm' => new ShmClient($socket),
    default => throw new \InvalidArgumentException("unknown channel $channel"),
};
\mt_srand(42);
$payload = $size > 0 ? \random_bytes($size) : '';
$expected = \max(1, \intdiv($size, 8));

$loop = static function (IpcClient $client, int $count) use ($payload, $expected, $every): void {
    for ($i = 0; $i < $count; $i++) {
        if ($every > 0 && $i > 0 && $i % $every === 0) {
            $client->close();
        }
        if (\strlen($client->request($payload)) !== $expected) {
            throw new \RuntimeException('bad response length');
        }
    }
};

$client->request($payload); // connect (and map) outside the timed part
if ($mode === 'blocking') {
    $loop($client, $warmup);
    if ($every > 0) {
        $client->close();
    }
    $start = \hrtime(true);
    $loop($client, $requests);
} elseif ($mode === 'fiber') {
    $start = 0;
    Async::run(static function () use ($loop, $client, $requests, $warmup, $every, &$start): void {
        $loop($client, $warmup);
        if ($every > 0) {
            $client->close();
        }
        $start = \hrtime(true);
        $loop($client, $requests);
    })->await();
} elseif (\str_starts_with($mode, 'fibers:')) {
    $fibers = (int) \substr($mode, 7);
    $go = new DeferredFuture();
    $ready = 0;
    $end = 0;
    $futures = [];
    for ($f = 0; $f < $fibers; $f++) {
        $futures[] = Async::run(static function () use ($loop, $client, $requests, $warmup, $fibers, $go, &$ready, &$end): void {
            $loop($client, \intdiv($warmup, $fibers));
            $ready++;
            $go->future()->await();
            $loop($client, \intdiv($requests, $fibers));
            $end = \hrtime(true); // the last fiber to finish sets it; tearing the fibers down is not timed
        });
    }
    do {
        Async::delay(0.001); // until every fiber finished its warm-up and waits at the barrier
    } while ($ready < $fibers);
    $start = \hrtime(true);
    $go->complete(null);
    Future::awaitAll($futures);
    $requests = \intdiv($requests, $fibers) * $fibers;
} else {
    throw new \InvalidArgumentException("unknown mode $mode");
}
$seconds = ((isset($end) && $end > 0 ? $end : \hrtime(true)) - $start) / 1e9;
$client->close();
\printf("%.0f\n", $requests / $seconds);
