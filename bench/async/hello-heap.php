<?php

declare(strict_types=1);

/*
 * examples/hello.php's answer, plus GET /heap: this worker's PHP heap in bytes (memory_get_usage()
 * after a cycle collection), for bench/async/http.php --heap to weigh the idle connections it
 * holds open. Not an example: an instrument.
 */

use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): ResponseInterface {
    if ($request->getUri()->getPath() === '/heap') {
        \gc_collect_cycles();

        return new Response(200, ['Content-Type' => 'text/plain'], (string) \memory_get_usage());
    }

    return new Response(200, ['Content-Type' => 'text/plain'], 'Hello, World!');
};
