<?php

declare(strict_types=1);

/* Answers with the ini settings named in the query (?name=a&name2=b…): what the worker runs with. */

use Bobbin\Http\Message\Response;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): Response {
    $settings = [];
    foreach ($request->getQueryParams() as $name) {
        $settings[(string) $name] = \ini_get((string) $name);
    }

    return new Response(200, ['Content-Type' => 'application/json'], (string) \json_encode($settings));
};
