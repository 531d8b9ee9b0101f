<?php

declare(strict_types=1);

/*
 * bench/websocket/run.php's Bobbin server: examples/websocket/chat.php as it is on /chat, the echo
 * example on any other WebSocket path, and GET /stats for the worker's memory (PHP heap and RSS,
 * in bytes), which the 10,000-connection run reads before and after the members join.
 */

use Bobbin\Http\Message\Response;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Psr\Http\Message\ServerRequestInterface;

$chat = require \dirname(__DIR__, 2) . '/examples/websocket/chat.php';
$echo = require \dirname(__DIR__, 2) . '/examples/websocket/echo.php';

return static function (ServerRequestInterface $request) use ($chat, $echo): Response {
    if ($request->getUri()->getPath() === '/stats') {
        \gc_collect_cycles();
        \preg_match('/^VmRSS:\s+(\d+) kB/m', (string) \file_get_contents('/proc/self/status'), $rss);

        return new Response(200, ['Content-Type' => 'application/json'], (string) \json_encode([
            'heap' => \memory_get_usage(), 'rss' => (int) ($rss[1] ?? 0) * 1024,
        ]));
    }
    if ($request->getUri()->getPath() === '/chat' || !WebSocketUpgrade::isRequested($request)) {
        return $chat($request);
    }

    return $echo($request);
};
