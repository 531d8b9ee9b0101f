<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Symfony;

use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\WebSocket\WebSocket;
use Bobbin\Http\WebSocket\WebSocketOptions;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Closure;
use Psr\Http\Message\ServerRequestInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * WebSocketUpgrade for a Symfony controller or a Laravel route (docs/FRAMEWORKS.md, "WebSocket"):
 *
 *     if (WebSocketRoute::isRequested($request)) {
 *         return WebSocketRoute::accept($request, function (WebSocket $socket): void { ... });
 *     }
 *
 * The framework's request is turned back into a PSR-7 one (its headers, query, cookies,
 * attributes, among them the request id under which the upgrade waits for the server) and
 * accept()'s answer into a framework response. The adapter hands that 101 back to the server
 * with its headers, and the server, finding the upgrade waiting under the request's id, runs the
 * closure once the 101 is written. Headers the framework's middleware adds (cookies, caching)
 * go out on the 101 too, where clients ignore them.
 */
final class WebSocketRoute
{
    private function __construct()
    {
    }

    public static function isRequested(Request $request): bool
    {
        return \in_array('websocket', \array_map('trim', \explode(',', \strtolower((string) $request->headers->get('Upgrade')))), true);
    }

    /**
     * @param Closure(WebSocket): void $session runs after the framework is done with the request
     *        (its container may serve other requests meanwhile): take what it needs from the
     *        request before, or from WebSocket::request()
     * @param list<string> $protocols
     * @throws \LogicException outside bin/bobbin serve
     */
    public static function accept(Request $request, Closure $session, WebSocketOptions $options = new WebSocketOptions(), array $protocols = []): Response
    {
        $answer = WebSocketUpgrade::accept(self::psrRequest($request), $session, $options, $protocols);

        return new Response((string) $answer->getBody(), $answer->getStatusCode(), $answer->getHeaders());
    }

    private static function psrRequest(Request $request): ServerRequestInterface
    {
        $psr = ServerRequest::create($request->getMethod(), $request->getUri(), $request->server->all())
            ->withProtocolVersion(\substr((string) $request->server->get('SERVER_PROTOCOL', 'HTTP/1.1'), 5))
            ->withQueryParams($request->query->all())
            ->withCookieParams($request->cookies->all());
        foreach ($request->headers->all() as $name => $values) {
            $psr = $psr->withHeader((string) $name, \array_map('strval', $values));
        }
        foreach ($request->attributes->all() as $name => $value) {
            $psr = $psr->withAttribute((string) $name, $value);
        }

        return $psr;
    }
}
