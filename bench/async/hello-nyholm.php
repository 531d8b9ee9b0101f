<?php

declare(strict_types=1);

/*
 * examples/hello.php as it was until 25 Nov 2026, with Nyholm's PSR-7 responses (a php://temp
 * stream per body): the application bench/async/compare.php runs on every checkout when the
 * server's own cost is compared across commits (`-- --app=bench/async/hello-nyholm.php`), since
 * older checkouts lack the classes the current example uses.
 */

use Nyholm\Psr7\Response;
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
