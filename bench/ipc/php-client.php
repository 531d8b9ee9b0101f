<?php

declare(strict_types=1);

/*
 * One PHP benchmark run against a running bobbin-ipcd; prints "<requests/s>".
 * usage: php php-client.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY blocking|fiber|fibers:N
 */

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Ipc\Endpoint;
use Bobbin\Ipc\IpcClient;
use Bobbin\Ipc\ShmClient;
use Bobbin\Ipc\SocketClient;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';

if ($argc !== 8) {
    \fwrite(\STDERR, "usage: php php-client.php unix|tcp|shm SOCKET TCP_PORT SIZE REQUESTS RECONNECT_EVERY blocking|fiber|fibers:N\n");
    exit(2);
}
[, $channel, $socket, $port, $size, $requests, $every, $mode] = $argv;
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
if ($every > 0) {
    $client->close();
}
$start = \hrtime(true);
if ($mode === 'blocking') {
    $loop($client, $requests);
} elseif ($mode === 'fiber') {
    Async::run($loop, $client, $requests)->await();
} elseif (\str_starts_with($mode, 'fibers:')) {
    $fibers = (int) \substr($mode, 7);
    $futures = [];
    for ($f = 0; $f < $fibers; $f++) {
        $futures[] = Async::run($loop, $client, \intdiv($requests, $fibers));
    }
    Future::awaitAll($futures);
    $requests = \intdiv($requests, $fibers) * $fibers;
} else {
    throw new \InvalidArgumentException("unknown mode $mode");
}
$seconds = (\hrtime(true) - $start) / 1e9;
$client->close();
\printf("%.0f\n", $requests / $seconds);
