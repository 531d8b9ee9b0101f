<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Http\Classic\HeaderCapture;
use Psr\Http\Message\ServerRequestInterface;

/**
 * What a script sees of its request, as PHP-FPM sets it up: the superglobals, php://input, an
 * empty header list, response code 200.
 *
 * @internal used by the script loops
 */
final class RequestStage
{
    private function __construct()
    {
    }

    public static function enter(ServerRequestInterface $request): void
    {
        $globals = Superglobals::of($request, (string) (\ini_get('request_order') ?: 'GP'));
        $_GET = $globals->get;
        $_POST = $globals->post;
        $_COOKIE = $globals->cookie;
        $_FILES = $globals->files;
        $_SERVER = $globals->server;
        $route = $request->getAttribute(ScriptRoute::ATTRIBUTE);
        if ($route instanceof ScriptRoute) {
            $_SERVER = \array_replace($_SERVER, $route->serverParams());
        }
        $_REQUEST = $globals->request;
        InputStream::serve($globals->input);
        HeaderCapture::take();
        \http_response_code(200);
    }
}
