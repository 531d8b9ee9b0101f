<?php

declare(strict_types=1);

namespace Bobbin\Http\WebSocket;

use Bobbin\Http\Message\Response;
use Bobbin\Http\RequestIds;
use Closure;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/**
 * Accepts a WebSocket from a PSR-15 handler (docs/HTTP.md "WebSocket"):
 *
 *     if (WebSocketUpgrade::isRequested($request)) {
 *         return WebSocketUpgrade::accept($request, function (WebSocket $socket): void {
 *             while (($message = $socket->receive()) !== null) {
 *                 $socket->send('echo: ' . $message->data);
 *             }
 *         });
 *     }
 *
 * The handler returns the 101 response accept() makes; once the server has written it, the
 * closure runs in the request's fiber with the connection, until it returns (the WebSocket is
 * then closed normally; 1011 when it threw). An invalid handshake gets its 400 or 426 instead.
 * The handshake negotiates permessage-deflate (WebSocketOptions::$perMessageDeflate) and a
 * subprotocol (accept()'s $protocols).
 */
final class WebSocketUpgrade
{
    /**
     * Accepted upgrades by request id, until the server takes them. Public for the response
     * writer's check, one array compare per response: the hot path's whole cost.
     *
     * @internal
     * @var array<string, array{Closure(WebSocket): void, WebSocketOptions, ServerRequestInterface, ?PerMessageDeflate, ?string}>
     */
    public static array $pending = [];

    private function __construct()
    {
    }

    public static function isRequested(ServerRequestInterface $request): bool
    {
        return Handshake::isRequested($request);
    }

    /**
     * @param Closure(WebSocket): void $session
     * @param list<string> $protocols the subprotocols this endpoint speaks: the first of the
     *        client's Sec-WebSocket-Protocol values found here is answered (WebSocket::protocol());
     *        when none is, the handshake goes on without one (RFC 6455 §4.2.2) and the closure
     *        decides whether to talk or to close
     * @throws \LogicException outside bin/bobbin serve (PHP-FPM cannot hand a connection over)
     */
    public static function accept(ServerRequestInterface $request, Closure $session, WebSocketOptions $options = new WebSocketOptions(), array $protocols = []): ResponseInterface
    {
        $requestId = $request->getAttribute(RequestIds::ATTRIBUTE);
        if (!\is_string($requestId)) {
            throw new \LogicException('A WebSocket needs bin/bobbin serve: this request did not come through its server');
        }
        $refusal = Handshake::refusal($request);
        if ($refusal !== null) {
            [$status, $reason] = $refusal;

            return new Response($status, ['Content-Type' => 'text/plain', 'Sec-WebSocket-Version' => '13'], $reason . "\n");
        }
        $headers = [
            'Upgrade' => 'websocket',
            'Connection' => 'Upgrade',
            'Sec-WebSocket-Accept' => Handshake::acceptKey($request->getHeaderLine('Sec-WebSocket-Key')),
        ];
        $deflate = $options->perMessageDeflate ? PerMessageDeflate::negotiate($request->getHeaderLine('Sec-WebSocket-Extensions')) : null;
        if ($deflate !== null) {
            $headers['Sec-WebSocket-Extensions'] = $deflate->responseHeader();
        }
        $protocol = Handshake::protocol($request, $protocols);
        if ($protocol !== null) {
            $headers['Sec-WebSocket-Protocol'] = $protocol;
        }
        self::$pending[$requestId] = [$session, $options, $request, $deflate, $protocol];

        return new Response(101, $headers);
    }

    /**
     * @internal The server's side, once the 101 is written: the accepted closure of this request, if any.
     * @return array{Closure(WebSocket): void, WebSocketOptions, ServerRequestInterface, ?PerMessageDeflate, ?string}|null
     */
    public static function take(string $requestId): ?array
    {
        $upgrade = self::$pending[$requestId] ?? null;
        unset(self::$pending[$requestId]);

        return $upgrade;
    }
}
