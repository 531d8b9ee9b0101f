<?php

declare(strict_types=1);

/*
 * The aircraft contract on amphp/http-server: DATABASE_URL=… php bench/peers/amphp/crud.php PORT
 * With AMPHP's own PostgreSQL client, amphp/postgres (ext-pgsql underneath): a pool of up to
 * 32 connections, as Bobbin's DATABASE_POOL_MAX in the benchmark, and $pool->execute() with
 * parameters (unnamed statements). Its prepared statements, kept and reused from 50 fibers, failed
 * ("prepared statement amp_… does not exist" on DEALLOCATE) in amphp/postgres 2.0.0.
 */

use Amp\Http\Server\Request;
use Amp\Http\Server\RequestHandler\ClosureRequestHandler;
use Amp\Http\Server\Response;
use Amp\Postgres\PostgresConfig;
use Amp\Postgres\PostgresConnectionPool;
use Amp\Postgres\PostgresQueryError;
use Bobbin\Bench\Peers\Aircraft;
use Bobbin\Bench\Peers\AircraftConflict;
use Bobbin\Bench\Peers\AircraftStore;

require __DIR__ . '/common.php';
require dirname(__DIR__) . '/Aircraft.php';

final class AmpAircraftStore implements AircraftStore
{
    public function __construct(private readonly PostgresConnectionPool $pool)
    {
    }

    public function rows(string $sql, array $params): array
    {
        try {
            $result = $this->pool->execute($sql, $params);
        } catch (PostgresQueryError $e) { // an \Error in amphp/sql 2
            throw ($e->getDiagnostics()['sqlstate'] ?? '') === '23505' ? new AircraftConflict('unique violation', 0, $e) : $e;
        }
        $rows = [];
        foreach ($result as $row) {
            $rows[] = $row;
        }

        return $rows;
    }
}

$pool = new PostgresConnectionPool(PostgresConfig::fromString((string) getenv('DATABASE_URL')), 32);
$app = new Aircraft(new AmpAircraftStore($pool));
amphp_serve(new ClosureRequestHandler(static function (Request $request) use ($app): Response {
    $uri = $request->getUri();
    [$status, $headers, $body] = $app->handle($request->getMethod(), $uri->getPath(), $uri->getQuery(), $request->getBody()->buffer());

    return new Response($status, $headers, $body);
}));
