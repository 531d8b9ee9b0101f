<?php

declare(strict_types=1);

/*
 * Serves $handler with amphp/http-server on 127.0.0.1:PORT (argv[1]) in this one process until
 * SIGINT or SIGTERM; used by hello.php and crud.php. Connection limits are raised past what the
 * benchmark opens (the defaults allow 10 connections per IP), response compression is off,
 * TCP_NODELAY is on.
 */

use Amp\Http\Server\DefaultErrorHandler;
use Amp\Http\Server\RequestHandler;
use Amp\Http\Server\SocketHttpServer;
use Amp\Socket\BindContext;
use Psr\Log\NullLogger;

use function Amp\trapSignal;

require dirname(__DIR__, 3) . '/var/peers/amphp/vendor/autoload.php';

function amphp_serve(RequestHandler $handler): void
{
    global $argv;
    $port = (int) ($argv[1] ?? 8080);
    $server = SocketHttpServer::createForDirectAccess(
        new NullLogger(),
        enableCompression: false,
        connectionLimit: 100_000,
        connectionLimitPerIp: 100_000,
        concurrencyLimit: null,
    );
    // TCP_NODELAY: AMPHP writes a response's head and body apart (the others in one write), and
    // without it the body waits for the client's delayed ACK (~45 ms per request measured).
    $server->expose('127.0.0.1:' . $port, (new BindContext())->withTcpNoDelay());
    $server->start($handler, new DefaultErrorHandler());
    trapSignal([\SIGINT, \SIGTERM]);
    $server->stop();
}
