<?php

declare(strict_types=1);

/*
 * An APP_FILE that takes every free file descriptor and gives them back on request, to show what
 * the server still does when the application holds them all:
 *   GET /hog       opens /dev/null until the open-files limit refuses; answers how many it holds
 *   GET /release   closes them
 *   POST /form     the parsed body's "field" (a multipart body loads the form classes the first time)
 */

use Bobbin\Http\Message\Response;
use Psr\Http\Message\ServerRequestInterface;

$held = [];

return static function (ServerRequestInterface $request) use (&$held): Response {
    switch ($request->getUri()->getPath()) {
        case '/hog':
            while (($file = @\fopen('/dev/null', 'rb')) !== false) {
                $held[] = $file;
            }

            return new Response(200, [], (string) \count($held));
        case '/release':
            $held = [];

            return new Response(200, [], 'released');
        default:
            $body = $request->getParsedBody();

            return new Response(200, [], \is_array($body) ? (string) ($body['field'] ?? '') : '');
    }
};
