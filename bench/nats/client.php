<?php

declare(strict_types=1);

/*
 * bench/nats/client.php pub|sub URL SIZE COUNT — one side of bench/nats/instructions.php, on its
 * own so that valgrind counts nothing else: `pub` publishes COUNT messages of SIZE bytes and
 * flushes; `sub` subscribes to bench.instructions, prints "ready" once the server has the SUB,
 * and receives COUNT messages (from bench/nats/pub.c, which the caller starts then).
 */

use Bobbin\Nats\Connection;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver();

[, $mode, $url, $size, $count] = $argv + [null, '', '', '16', '1000'];
$count = (int) $count;
$connection = Connection::connect($url);
if ($mode === 'pub') {
    $payload = \str_repeat('x', (int) $size);
    for ($i = 0; $i < $count; $i++) {
        $connection->publish('bench.instructions.pub', $payload);
    }
    $connection->flush(600.0);
} else {
    $subscription = $connection->subscribe('bench.instructions');
    $connection->flush(60.0);
    echo "ready\n";
    for ($i = 0; $i < $count; $i++) {
        $subscription->next(600.0);
    }
}
$connection->close();
