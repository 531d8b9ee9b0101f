<?php

declare(strict_types=1);

/*
 * The application of bench/fatal-flood/run.php, served unchanged by both servers (Bobbin as
 * APP_FILE, PHP-FPM through bench/fatal-flood/fpm.php):
 *   /oom           allocates 1 MiB strings until memory_limit ends the request with a fatal error
 *   anything else  200 "ok" (a healthy request)
 */

use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): ResponseInterface {
    if ($request->getUri()->getPath() === '/oom') {
        $hog = [];
        while (true) {
            $hog[] = \str_repeat('y', 1 << 20);
        }
    }

    return new Response(200, ['Content-Type' => 'text/plain'], "ok\n");
};
