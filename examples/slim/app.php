<?php

declare(strict_types=1);

/*
 * A Slim 4 application as an APP_FILE: `bin/bobbin serve examples/slim/app.php`. Built once per
 * worker; Slim\App is a PSR-15 handler, so nothing else is needed. public/index.php serves the
 * same application under PHP-FPM.
 *
 * BOBBIN_CONCURRENCY=one lets one request at a time into the application (the adapters'
 * default); without it, requests of one worker run concurrently, and the application follows
 * the one rule that makes that safe: request state travels in the request, never in a
 * long-lived object (docs/FRAMEWORKS.md).
 *
 * Routes (the leak suite's contract, tests/Integration/Frameworks):
 *   GET  /health            "ok"
 *   GET  /probe/{id}?q=ID&wait=timer|db&ms=N   waits, then says what the request sees (JSON)
 *   POST /pollute           sets state a next request must not see (static property, a cookie)
 *   GET  /state             the state a request sees when it brings nothing (JSON)
 *   GET  /ws?name=N         a WebSocket: a greeting, then an echo
 *   GET  /fail              throws (the error page must not show it)
 *   GET  /stream/events?count=N&ms=M&token=T  N server-sent events M ms apart from a generator
 *                           (Bobbin's EventStream); with a token, how the stream ended is written
 *                           to a file the streaming test reads
 */

use App\Database;
use App\Probe;
use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Frameworks\Concurrency;
use Bobbin\Frameworks\OneRequestAtATime;
use Bobbin\Frameworks\StaticProperties;
use Bobbin\Http\Message\EventStream;
use Bobbin\Http\RequestCancellation;
use Bobbin\Http\WebSocket\WebSocket;
use Bobbin\Http\WebSocket\WebSocketUpgrade;
use Bobbin\Postgres\Exception\UniqueViolationException;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Slim\Factory\AppFactory;
use Slim\Routing\RouteContext;

require_once __DIR__ . '/vendor/autoload.php';

$app = AppFactory::create();

// The user of a request belongs to the request: an attribute, not a property of a service.
$app->add(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
    $user = $request->getHeaderLine('X-User');

    return $next->handle($user === '' ? $request : $request->withAttribute('user', $user));
});
$app->addRoutingMiddleware();
$app->addErrorMiddleware(false, true, true);

$json = static function (ResponseInterface $response, array $data): ResponseInterface {
    $response->getBody()->write((string) \json_encode($data, \JSON_THROW_ON_ERROR));

    return $response->withHeader('Content-Type', 'application/json');
};

$app->get('/health', static function (ServerRequestInterface $request, ResponseInterface $response): ResponseInterface {
    $response->getBody()->write('ok');

    return $response;
});

$app->get('/probe/{id}', static function (ServerRequestInterface $request, ResponseInterface $response, array $args) use ($json): ResponseInterface {
    $query = $request->getQueryParams();
    $seconds = (int) ($query['ms'] ?? 100) / 1000;
    $cancellation = RequestCancellation::of($request);
    if (($query['wait'] ?? 'timer') === 'db') {
        Database::pool()->query('SELECT pg_sleep($1)', [$seconds], $cancellation);
    } else {
        Async::delay($seconds, $cancellation);
    }
    $context = RouteContext::fromRequest($request);

    return $json($response, [
        'id' => $args['id'],
        'request' => $request->getQueryParams()['q'] ?? null,
        // Per request: the routing results travel in the request.
        'route' => $context->getRoutingResults()->getRouteArguments()['id'] ?? null,
        // Shared: Slim's Route object is one per route and prepare() overwrites its arguments,
        // so under concurrency this is whichever request was routed last (the leak suite shows it).
        'sharedRoute' => $context->getRoute()?->getArgument('id'),
        'user' => $request->getAttribute('user'),
        'session' => null,
    ]);
});

$app->post('/pollute', static function (ServerRequestInterface $request, ResponseInterface $response) use ($json): ResponseInterface {
    Probe::$value = 'polluted';
    \setcookie('leak', 'polluted');

    return $json($response, ['polluted' => true]);
});

$app->get('/state', static function (ServerRequestInterface $request, ResponseInterface $response) use ($json): ResponseInterface {
    return $json($response, [
        'user' => $request->getAttribute('user'),
        'config' => null,
        'static' => Probe::$value,
        'session' => null,
    ]);
});

// The features the example's own tests exercise (tests/Integration/Frameworks/ExampleAppFeaturesTestCase).
$app->get('/items/{id:[0-9]+}', static function (ServerRequestInterface $request, ResponseInterface $response, array $args) use ($json): ResponseInterface {
    $item = Database::pool()->queryOne('SELECT id, name FROM fw_items WHERE id = $1', [(int) $args['id']], RequestCancellation::of($request));

    return $item === null ? $json($response->withStatus(404), ['error' => 'not found']) : $json($response, $item);
});

$app->post('/items', static function (ServerRequestInterface $request, ResponseInterface $response) use ($json): ResponseInterface {
    $body = (array) $request->getParsedBody();
    $name = \trim((string) ($body['name'] ?? ''));
    if ($name === '' || \mb_strlen($name) > 40) {
        return $json($response->withStatus(422), ['errors' => ['name' => 'required, at most 40 characters']]);
    }
    try {
        $id = Database::pool()->queryValue('INSERT INTO fw_items (name) VALUES ($1) RETURNING id', [$name], RequestCancellation::of($request));
    } catch (UniqueViolationException) {
        return $json($response->withStatus(409), ['error' => 'name taken']);
    }

    return $json($response->withStatus(201), ['id' => $id, 'name' => $name]);
});

$app->post('/upload', static function (ServerRequestInterface $request, ResponseInterface $response) use ($json): ResponseInterface {
    $file = $request->getUploadedFiles()['document'] ?? null;
    $body = (array) $request->getParsedBody();

    return $json($response, [
        'field' => $body['field'] ?? null,
        'name' => $file?->getClientFilename(),
        'size' => $file?->getSize(),
        'sha1' => $file === null ? null : \sha1((string) $file->getStream()),
    ]);
});

$app->get('/stream/events', static function (ServerRequestInterface $request): ResponseInterface {
    $query = $request->getQueryParams();
    $count = (int) ($query['count'] ?? 3);
    $seconds = (int) ($query['ms'] ?? 300) / 1000;
    $token = (string) \preg_replace('/\W/', '', (string) ($query['token'] ?? ''));
    $cancellation = RequestCancellation::of($request);

    return EventStream::response(static function () use ($count, $seconds, $token, $cancellation): \Generator {
        $outcome = 'interrupted';
        try {
            for ($i = 1; $i <= $count; $i++) {
                if ($i > 1) {
                    Async::delay($seconds, $cancellation); // the worker serves other requests meanwhile
                }
                yield "event $i";
            }
            $outcome = 'completed';
        } catch (CancelledException) {
            $outcome = 'cancelled';
        } finally {
            if ($token !== '') {
                \file_put_contents(\sys_get_temp_dir() . '/bobbin-stream-' . $token, $outcome);
            }
        }
    });
});

// A WebSocket (bin/bobbin serve only): greets with the route's name and ?name=, then echoes.
$app->get('/ws', static function (ServerRequestInterface $request, ResponseInterface $response): ResponseInterface {
    if (!WebSocketUpgrade::isRequested($request)) {
        $response->getBody()->write("a WebSocket echo: connect with Upgrade: websocket\n");

        return $response->withStatus(426)->withHeader('Content-Type', 'text/plain');
    }
    $greeting = \sprintf('hello %s from %s', $request->getQueryParams()['name'] ?? 'stranger', RouteContext::fromRequest($request)->getRoute()?->getName());

    return WebSocketUpgrade::accept($request, static function (WebSocket $socket) use ($greeting): void {
        $socket->send($greeting . ' (' . ($socket->protocol() ?? 'no subprotocol') . ')');
        while (($message = $socket->receive()) !== null) {
            $socket->send('echo: ' . $message->data);
        }
    }, protocols: ['echo.v1']);
})->setName('websocket');

$app->get('/fail', static function (): ResponseInterface {
    throw new \RuntimeException('secret detail: /etc/passwd');
});

if (Concurrency::fromEnvironment(Concurrency::Concurrent) === Concurrency::OneAtATime) {
    // One request at a time, and the statics put back after each: safe for any PSR-15 code.
    return new OneRequestAtATime($app, [StaticProperties::capture(Probe::class)->restore(...)]);
}

return $app;
