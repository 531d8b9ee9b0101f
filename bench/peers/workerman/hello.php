<?php

declare(strict_types=1);

/*
 * Plaintext hello on Workerman: php bench/peers/workerman/hello.php PORT
 * Any request → 200 text/plain "Hello, World!".
 */

use Workerman\Connection\TcpConnection;
use Workerman\Protocols\Http\Request;
use Workerman\Protocols\Http\Response;

require __DIR__ . '/common.php';

workerman_serve('hello', static function (TcpConnection $connection, Request $request): void {
    $connection->send(new Response(200, ['Content-Type' => 'text/plain'], 'Hello, World!'));
});
