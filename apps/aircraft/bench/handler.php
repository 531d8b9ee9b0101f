<?php

declare(strict_types=1);

/*
 * CPU cost of the aircraft application's own layer per request, without sockets or a database:
 *
 *   php -d opcache.enable_cli=1 -d opcache.jit_buffer_size=64M -d opcache.jit=tracing \
 *       apps/aircraft/bench/handler.php [--n=20000] [--rounds=7] [--src=DIR]
 *
 * (the opcache/JIT settings are the ones `bin/bobbin serve` runs with). The four requests of one
 * CRUD cycle — POST /aircraft with a JSON body, GET, PUT and DELETE /aircraft/123 — are built
 * once per use as the server builds them (Bobbin\Http\Message\ServerRequest::fromParsed()), and:
 *
 *   validate   AircraftInput::fromArray() on the decoded POST body (valid: the benchmark's case)
 *   validate!  the same with every field wrong (the 422 path), for comparison
 *   respond    JsonResponses as the controllers use it: 201 with Location, 200, 200, 204
 *   route      the FastRoute dispatcher of Routes::dispatcher() on the four method/path pairs
 *   request    building the four ServerRequests alone (the server's cost, subtracted below)
 *   handle     AircraftApplication::handle() on the four requests, all layers of the application
 *              (routing, body decoding, validation, repository, response), the database replaced
 *              by a stub that answers instantly; printed without the `request` share
 *   boot       building the container and the application (FastRoute table included): what
 *              PHP-FPM pays on every request, the Bobbin server once per worker
 *
 * Every figure is µs per operation (per request where there are four), the median of the
 * rounds; the benchmarks run interleaved. --src=DIR loads Bobbin\Apps\Aircraft from another copy
 * of apps/aircraft/src, so that two versions can be compared on the same machine minutes apart.
 * It runs one process on one CPU for a few seconds: no server, no load generator.
 */

use Bobbin\Apps\Aircraft\AircraftServices;
use Bobbin\Apps\Aircraft\Domain\AircraftInput;
use Bobbin\Apps\Aircraft\Domain\ValidationException;
use Bobbin\Apps\Aircraft\Http\AircraftApplication;
use Bobbin\Apps\Aircraft\Http\JsonResponses;
use Bobbin\Apps\Aircraft\Http\Routes;
use Bobbin\Apps\Aircraft\Http\AircraftController;
use Bobbin\Apps\Aircraft\Http\ChartController;
use Bobbin\Apps\Aircraft\Http\ProbeController;
use Bobbin\Async\Cancellation;
use Bobbin\Http\Message\MessageFactory;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Postgres\Executor;
use Bobbin\Postgres\IsolationLevel;
use Bobbin\Postgres\Result;
use Psr\Log\NullLogger;

require \dirname(__DIR__, 3) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

$options = \getopt('', ['n::', 'rounds::', 'src::']);
$src = isset($options['src']) && \is_string($options['src']) ? $options['src'] : null;
$n = \max(1, (int) ($options['n'] ?? 20000));
$rounds = \max(1, (int) ($options['rounds'] ?? 7));
if ($src !== null) {
    $src = \realpath($src) ?: throw new \RuntimeException('No such folder: ' . $src);
    // Ahead of Composer, whose optimised class map points at apps/aircraft/src.
    \spl_autoload_register(static function (string $class) use ($src): void {
        $prefix = 'Bobbin\\Apps\\Aircraft\\';
        if (\str_starts_with($class, $prefix) && \is_file($file = $src . '/' . \strtr(\substr($class, \strlen($prefix)), '\\', '/') . '.php')) {
            require $file;
        }
    }, true, true);
}

/** The database as the application sees it, answering at once with the row it would return. */
final class StubDatabase implements Executor
{
    /** @param array<string, mixed> $row */
    public function __construct(private readonly array $row)
    {
    }

    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        throw new \LogicException('not used by the CRUD cycle');
    }

    public function queryAll(string $sql, array $params = [], ?Cancellation $cancellation = null): array
    {
        return [$this->row];
    }

    /** @return array<string, mixed> */
    public function queryOne(string $sql, array $params = [], ?Cancellation $cancellation = null): array
    {
        return $this->row;
    }

    public function queryValue(string $sql, array $params = [], ?Cancellation $cancellation = null): mixed
    {
        return null;
    }

    public function execute(string $sql, array $params = [], ?Cancellation $cancellation = null): int
    {
        return 1;
    }

    public function transaction(\Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        throw new \LogicException('not used by the CRUD cycle');
    }
}

// What the load generator sends, and what PostgreSQL answers (ids as int, dates as text).
$fields = ['number' => 'RA-89001', 'title' => 'Sukhoi Superjet 100', 'serial_number' => '95001', 'assembly_date' => '2008-05-19', 'added_at' => '2024-01-31'];
$row = ['id' => 123] + $fields;
$json = \json_encode($fields, \JSON_THROW_ON_ERROR);
$bad = ['number' => 42, 'title' => '  ', 'serial_number' => \str_repeat('x', 65), 'assembly_date' => '2023-02-30'];
$headers = ['Host' => ['127.0.0.1:8085'], 'User-Agent' => ['bobbin-loadgen/1.0'], 'Accept' => ['application/json']];
$bodyHeaders = $headers + ['Content-Type' => ['application/json'], 'Content-Length' => [(string) \strlen($json)]];
$cycle = [
    ['POST', '/aircraft', $bodyHeaders, $json, 201],
    ['GET', '/aircraft/123', $headers, '', 200],
    ['PUT', '/aircraft/123', $bodyHeaders, $json, 200],
    ['DELETE', '/aircraft/123', $headers, '', 204],
];
$requests = static function () use ($cycle): array {
    $built = [];
    foreach ($cycle as [$method, $target, $head, $body, $status]) {
        $built[] = [ServerRequest::fromParsed($method, $target, '1.1', $head, '127.0.0.1:8085', '127.0.0.1:8085', $body, ['REMOTE_ADDR' => '127.0.0.1']), $status];
    }

    return $built;
};

$boot = static fn (): AircraftApplication => AircraftServices::container(static fn (): Executor => new StubDatabase($row), new NullLogger())
    ->get(AircraftApplication::class);
$application = $boot();
$container = AircraftServices::container(static fn (): Executor => new StubDatabase($row), new NullLogger());
$responses = $container->get(JsonResponses::class);
$router = Routes::dispatcher($container->get(AircraftController::class), $container->get(ProbeController::class), $container->get(ChartController::class));
$decoded = (array) \json_decode($json, false, 8, \JSON_THROW_ON_ERROR);

// Check once that the stubbed cycle answers as the contract says, so the figures are for working code.
foreach ($requests() as [$request, $status]) {
    $response = $application->handle($request);
    if ($response->getStatusCode() !== $status) {
        throw new \LogicException(\sprintf('%s %s answered %d: %s', $request->getMethod(), $request->getRequestTarget(), $response->getStatusCode(), $response->getBody()));
    }
}

/** @var array<string, array{int, Closure(): void}> name => [operations per call, one call] */
$benchmarks = [
    'validate' => [1, static function () use ($decoded): void {
        AircraftInput::fromArray($decoded);
    }],
    'validate!' => [1, static function () use ($bad): void {
        try {
            AircraftInput::fromArray($bad);
        } catch (ValidationException) {
        }
    }],
    'respond' => [4, static function () use ($responses, $row): void {
        $responses->json(201, $row, ['Location' => '/aircraft/123']);
        $responses->json(200, $row);
        $responses->json(200, $row);
        $responses->noContent();
    }],
    'route' => [4, static function () use ($router, $cycle): void {
        foreach ($cycle as [$method, $path]) {
            $router->dispatch($method, $path);
        }
    }],
    'request' => [4, static function () use ($requests): void {
        $requests();
    }],
    'handle' => [4, static function () use ($requests, $application): void {
        foreach ($requests() as [$request]) {
            $application->handle($request);
        }
    }],
    'boot' => [1, static function () use ($boot): void {
        $boot();
    }],
];

$perOperation = \array_fill_keys(\array_keys($benchmarks), []);
for ($round = 0; $round < $rounds; $round++) {
    foreach ($benchmarks as $name => [$operations, $call]) {
        // Fewer calls for the costly ones, so that each takes about the same time.
        $calls = \max(1, \intdiv($n, $name === 'boot' ? 20 : $operations));
        $start = \hrtime(true);
        for ($i = 0; $i < $calls; $i++) {
            $call();
        }
        $perOperation[$name][] = (\hrtime(true) - $start) / 1000 / ($calls * $operations);
    }
}

$median = static function (array $values): float {
    \sort($values);

    return $values[\intdiv(\count($values), 2)];
};
$medians = \array_map($median, $perOperation);
$medians['handle'] -= $medians['request'];

\printf("PHP %s, opcache %s, JIT %s; src %s; n=%d, %d rounds, median µs per operation\n\n", \PHP_VERSION,
    \function_exists('opcache_get_status') && \is_array(@\opcache_get_status(false)) ? 'on' : 'off',
    \ini_get('opcache.jit') ?: 'off', $src ?? 'apps/aircraft/src', $n, $rounds);
foreach ($medians as $name => $us) {
    \printf("  %-10s %7.3f%s\n", $name, $us, $name === 'handle' ? '  (without request)' : '');
}
