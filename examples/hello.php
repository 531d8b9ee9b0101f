<?php

declare(strict_types=1);

/*
 * The hello-world application: `bin/bobbin serve examples/hello.php`.
 * Any GET or HEAD → 200 "Hello, World!"; POST or PUT to /echo → the request body echoed back.
 *
 * Its responses are Bobbin's own PSR-7 objects (any PSR-7 implementation works; these cost the
 * server least: a string body goes out without the stream API). The same file runs under
 * PHP-FPM through bench/fpm/hello.php.
 */

use Bobbin\Http\Message\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): ResponseInterface {
    $method = $request->getMethod();
    if ($method === 'GET' || $method === 'HEAD') {
        return new Response(200, ['Content-Type' => 'text/plain'], 'Hello, World!');
    }
    if (($method === 'POST' || $method === 'PUT') && $request->getUri()->getPath() === '/echo') {
        $headers = $request->hasHeader('Content-Type') ? ['Content-Type' => $request->getHeaderLine('Content-Type')] : [];

        return new Response(200, $headers, (string) $request->getBody());
    }

    return new Response(405, ['Allow' => 'GET, HEAD, POST, PUT', 'Content-Type' => 'text/plain'], "Method Not Allowed\n");
};
