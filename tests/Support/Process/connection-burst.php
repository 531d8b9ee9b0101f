<?php

declare(strict_types=1);

/*
 * Opens COUNT connections to ADDRESS within about a second, sends nothing on them, holds them
 * for HOLD seconds, then closes them. Prints "connected N" once the connects have been issued
 * (the kernel completes them as the server's backlog allows) and "done" at the end.
 *   php connection-burst.php ADDRESS COUNT HOLD
 */

[, $address, $count, $hold] = $argv + [null, '127.0.0.1:8080', '1000', '5'];
$sockets = [];
$failed = 0;
$started = microtime(true);
for ($i = 0; $i < (int) $count; $i++) {
    $socket = @stream_socket_client('tcp://' . $address, $code, $message, 1.0, STREAM_CLIENT_CONNECT | STREAM_CLIENT_ASYNC_CONNECT);
    if ($socket === false) {
        $failed++;
        continue;
    }
    $sockets[] = $socket;
}
printf("connected %d failed %d in %.2f s\n", count($sockets), $failed, microtime(true) - $started);
usleep((int) ((float) $hold * 1e6));
foreach ($sockets as $socket) {
    fclose($socket);
}
echo "done\n";
