<?php

declare(strict_types=1);

/*
 * The aircraft contract on Workerman: DATABASE_URL=… php bench/peers/workerman/crud.php PORT
 * Workerman's way to a database: a blocking client in each worker (here PDO with statements
 * prepared once), requests served one after another.
 */

use Bobbin\Bench\Peers\Aircraft;
use Bobbin\Bench\Peers\PdoAircraftStore;
use Workerman\Connection\TcpConnection;
use Workerman\Protocols\Http\Request;
use Workerman\Protocols\Http\Response;

require __DIR__ . '/common.php';
require dirname(__DIR__) . '/Aircraft.php';

$app = null;
workerman_serve(
    'crud',
    static function (TcpConnection $connection, Request $request) use (&$app): void {
        [$status, $headers, $body] = $app->handle($request->method(), $request->path(), $request->queryString(), $request->rawBody());
        $connection->send(new Response($status, $headers, $body));
    },
    static function () use (&$app): void {
        $app = new Aircraft(PdoAircraftStore::connect((string) getenv('DATABASE_URL')));
    },
);
