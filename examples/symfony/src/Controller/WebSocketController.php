<?php

declare(strict_types=1);

namespace App\Controller;

use Bobbin\Frameworks\Symfony\WebSocketRoute;
use Bobbin\Http\WebSocket\WebSocket;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\Routing\Attribute\Route;

/**
 * A WebSocket from a controller (bin/bobbin serve only): greets with the route's name and the
 * ?name= it was opened with, then echoes each message (tests/Integration/Frameworks).
 */
final class WebSocketController
{
    #[Route('/ws', name: 'websocket', methods: ['GET'])]
    public function echo(Request $request): Response
    {
        if (!WebSocketRoute::isRequested($request)) {
            return new Response("a WebSocket echo: connect with Upgrade: websocket\n", 426, ['Content-Type' => 'text/plain']);
        }
        $greeting = \sprintf('hello %s from %s', $request->query->getString('name', 'stranger'), $request->attributes->getString('_route'));

        return WebSocketRoute::accept($request, static function (WebSocket $socket) use ($greeting): void {
            $socket->send($greeting . ' (' . ($socket->protocol() ?? 'no subprotocol') . ')');
            while (($message = $socket->receive()) !== null) {
                $socket->send('echo: ' . $message->data);
            }
        }, protocols: ['echo.v1']);
    }
}
