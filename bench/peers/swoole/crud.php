<?php

declare(strict_types=1);

/*
 * The aircraft contract on Swoole:
 *   DATABASE_URL=… php -d extension=var/peers/swoole/swoole.so bench/peers/swoole/crud.php PORT
 * Swoole's way to PostgreSQL: PDO made non-blocking by its runtime hooks (built with
 * --enable-swoole-pgsql), a request per coroutine, and a pool of up to 32 connections (as
 * Bobbin's DATABASE_POOL_MAX in the benchmark) on a Channel, each with its statements prepared once.
 */

use Bobbin\Bench\Peers\Aircraft;
use Bobbin\Bench\Peers\AircraftStore;
use Bobbin\Bench\Peers\PdoAircraftStore;
use Swoole\Coroutine\Channel;

require dirname(__DIR__) . '/Aircraft.php';

final class SwoolePooledStore implements AircraftStore
{
    private readonly Channel $idle;
    private int $opened = 0;

    public function __construct(private readonly string $url, private readonly int $max)
    {
        $this->idle = new Channel($max);
    }

    public function rows(string $sql, array $params): array
    {
        if ($this->idle->isEmpty() && $this->opened < $this->max) {
            $this->opened++;
            $store = PdoAircraftStore::connect($this->url);
        } else {
            $store = $this->idle->pop();
        }
        try {
            return $store->rows($sql, $params);
        } finally {
            $this->idle->push($store);
        }
    }
}

$app = null;
$server = new Swoole\Http\Server('127.0.0.1', (int) ($argv[1] ?? 8080), SWOOLE_BASE);
$server->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'hook_flags' => SWOOLE_HOOK_PDO_PGSQL]);
$server->on('workerStart', static function () use (&$app): void {
    $app = new Aircraft(new SwoolePooledStore((string) getenv('DATABASE_URL'), 32));
});
$server->on('request', static function (Swoole\Http\Request $request, Swoole\Http\Response $response) use (&$app): void {
    [$status, $headers, $body] = $app->handle(
        $request->server['request_method'],
        $request->server['path_info'] ?? $request->server['request_uri'],
        $request->server['query_string'] ?? '',
        (string) $request->rawContent(),
    );
    $response->status($status);
    foreach ($headers as $name => $value) {
        $response->header($name, $value);
    }
    $response->end($body);
});
$server->start();
