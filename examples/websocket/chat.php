<?php

declare(strict_types=1);

/*
 * A chat over WebSocket: every message a client sends goes to every client connected to this
 * worker (run it with --workers=1, or put a shared broker — Redis pub/sub, NATS — between
 * workers). ws://HOST:PORT/chat; GET / answers how many are connected. Each member costs the
 * worker ~30 KiB of PHP heap (its fiber, docs/HTTP.md "WebSocket"): for 10,000 members give it
 * --memory-limit=512M (bench/websocket/run.php holds 10,000 and broadcasts to all of them).
 *
 *   bin/bobbin serve examples/websocket/chat.php --workers=1 --listen=127.0.0.1:8080
 */

use Bobbin\Http\Message\Response;
use Bobbin\Http\WebSocket\WebSocket;
use Bobbin\Http\WebSocket\WebSocketClosedException;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Psr\Http\Message\ServerRequestInterface;

$members = new \SplObjectStorage();

return static function (ServerRequestInterface $request) use ($members): Response {
    if ($request->getUri()->getPath() === '/chat' && WebSocketUpgrade::isRequested($request)) {
        return WebSocketUpgrade::accept($request, static function (WebSocket $socket) use ($members): void {
            $members->attach($socket);
            try {
                while (($message = $socket->receive()) !== null) {
                    foreach ($members as $member) {
                        try {
                            $member->send($message->data); // waits for a member whose buffer is full
                        } catch (WebSocketClosedException) {
                            // It is leaving; its own fiber detaches it.
                        }
                    }
                }
            } finally {
                $members->detach($socket);
            }
        });
    }

    return new Response(200, ['Content-Type' => 'text/plain'], \count($members) . " connected\n");
};
