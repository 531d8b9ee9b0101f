<?php

declare(strict_types=1);

/*
 * Plaintext hello on Swoole: php -d extension=var/peers/swoole/swoole.so bench/peers/swoole/hello.php PORT
 * Any request → 200 text/plain "Hello, World!". SWOOLE_BASE with one worker: one process, the
 * mode Swoole 5+ starts by default, as Bobbin's --single-process.
 */

$server = new Swoole\Http\Server('127.0.0.1', (int) ($argv[1] ?? 8080), SWOOLE_BASE);
$server->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING]);
$server->on('request', static function (Swoole\Http\Request $request, Swoole\Http\Response $response): void {
    $response->header('Content-Type', 'text/plain');
    $response->end('Hello, World!');
});
$server->start();
