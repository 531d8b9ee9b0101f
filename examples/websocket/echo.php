<?php

declare(strict_types=1);

/*
 * Echoes every WebSocket message back as it came (text as text, binary as binary):
 * ws://HOST:PORT/ (WebSocketTest, the RFC 6455 cases and the `ws` interoperability check).
 */

use Bobbin\Http\Message\Response;
use Bobbin\Http\WebSocket\WebSocket;
use Bobbin\Http\WebSocket\WebSocketOptions;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): Response {
    if (!WebSocketUpgrade::isRequested($request)) {
        return new Response(200, ['Content-Type' => 'text/plain'], "a WebSocket echo\n");
    }

    return WebSocketUpgrade::accept($request, static function (WebSocket $socket): void {
        while (($message = $socket->receive()) !== null) {
            if ($message->binary) {
                $socket->sendBinary($message->data);
            } elseif ($message->data === 'close please') {
                $socket->close(4000, 'as asked');
            } else {
                $socket->send($message->data);
            }
        }
    }, new WebSocketOptions(maxMessageBytes: 65536));
};
