<?php

declare(strict_types=1);

/*
 * A database-backed application for tests of request cancellation
 * (bin/bobbin serve tests/Support/Http/database-app.php, DATABASE_URL in the environment):
 *   /pg-sleep?s=N&tag=T   runs SELECT pg_sleep(N) tagged with comment T, passing the request's
 *                         cancellation (RequestCancellation::of()) to the query
 */

use Bobbin\Http\Message\Response;
use Bobbin\Http\RequestCancellation;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

$pool = new ConnectionPool(PoolConfig::fromConnectionString((string) \getenv('DATABASE_URL'), maxSize: 4));

return static function (ServerRequestInterface $request) use ($pool): ResponseInterface {
    $query = $request->getQueryParams();
    $tag = \preg_replace('/[^a-z0-9]/', '', (string) ($query['tag'] ?? 'x'));
    $pool->query(
        "SELECT pg_sleep(\$1) /* $tag */",
        [(float) ($query['s'] ?? 1)],
        RequestCancellation::of($request),
    );

    return new Response(200, ['Content-Type' => 'text/plain'], 'slept');
};
