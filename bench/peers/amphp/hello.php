<?php

declare(strict_types=1);

/*
 * Plaintext hello on amphp/http-server: php bench/peers/amphp/hello.php PORT
 * Any request → 200 text/plain "Hello, World!".
 */

use Amp\Http\Server\Request;
use Amp\Http\Server\RequestHandler\ClosureRequestHandler;
use Amp\Http\Server\Response;

require __DIR__ . '/common.php';

amphp_serve(new ClosureRequestHandler(static function (Request $request): Response {
    return new Response(200, ['Content-Type' => 'text/plain'], 'Hello, World!');
}));
