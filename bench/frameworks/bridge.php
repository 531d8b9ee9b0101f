<?php

declare(strict_types=1);

/*
 * bench/frameworks/bridge.php — HttpFoundation <-> PSR-7 conversion per request + response:
 * Bobbin's HttpFoundationBridge against symfony/psr-http-message-bridge (HttpFoundationFactory
 * for the request, PsrHttpFactory with Bobbin's PSR-17 factories for the response, nyholm's for uploads), on a
 * request as Bobbin's server builds it (GET with a query, typical browser headers, a cookie)
 * and a small JSON response. The two take turns, round after round; medians per variant.
 *
 *   flock /tmp/bobbin-bench.lock php -d opcache.enable_cli=1 bench/frameworks/bridge.php [--n=20000] [--rounds=7]
 */

use Bobbin\Frameworks\Symfony\HttpFoundationBridge;
use Bobbin\Http\Message\MessageFactory;
use Bobbin\Http\Message\ServerRequest;
use Symfony\Bridge\PsrHttpMessage\Factory\HttpFoundationFactory;
use Symfony\Bridge\PsrHttpMessage\Factory\PsrHttpFactory;
use Symfony\Component\HttpFoundation\JsonResponse;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
require \dirname(__DIR__, 2) . '/examples/symfony/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

$options = \getopt('', ['n:', 'rounds:']);
$n = (int) ($options['n'] ?? 20000);
$rounds = (int) ($options['rounds'] ?? 7);

$headers = [
    'Host' => ['localhost:8080'], 'User-Agent' => ['Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0'],
    'Accept' => ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'], 'Accept-Language' => ['en-GB,en;q=0.5'],
    'Accept-Encoding' => ['gzip, deflate, br'], 'Cookie' => ['PHPSESSID=abc123def456; theme=dark'], 'Connection' => ['keep-alive'],
];
$server = ['REQUEST_METHOD' => 'GET', 'REQUEST_URI' => '/items/42?expand=owner', 'QUERY_STRING' => 'expand=owner',
    'SERVER_PROTOCOL' => 'HTTP/1.1', 'REMOTE_ADDR' => '127.0.0.1', 'REMOTE_PORT' => '50000', 'SERVER_ADDR' => '127.0.0.1',
    'SERVER_PORT' => '8080', 'SERVER_NAME' => 'localhost', 'SCRIPT_NAME' => '/index.php', 'SCRIPT_FILENAME' => '/app/public/index.php',
    'REQUEST_TIME' => \time(), 'REQUEST_TIME_FLOAT' => \microtime(true)];
foreach ($headers as $name => $values) {
    $server['HTTP_' . \strtoupper(\str_replace('-', '_', $name))] = \implode(', ', $values);
}
$request = ServerRequest::create('GET', 'http://localhost:8080/items/42?expand=owner', $server)
    ->withQueryParams(['expand' => 'owner'])
    ->withCookieParams(['PHPSESSID' => 'abc123def456', 'theme' => 'dark']);
foreach ($headers as $name => $values) {
    $request = $request->withHeader($name, $values);
}
$response = new JsonResponse(['id' => 42, 'name' => 'item 42', 'owner' => ['id' => 7, 'name' => 'Ann']]);

$bobbin = new HttpFoundationBridge();
$factory = new MessageFactory();
$toSymfony = new HttpFoundationFactory();
$toPsr = new PsrHttpFactory($factory, $factory, new Nyholm\Psr7\Factory\Psr17Factory(), $factory);
$variants = [
    'bobbin HttpFoundationBridge' => static function () use ($bobbin, $request, $response): void {
        $bobbin->toSymfonyRequest($request)->query->get('expand');
        $bobbin->toPsrResponse($response);
    },
    'symfony/psr-http-message-bridge' => static function () use ($toSymfony, $toPsr, $request, $response): void {
        $toSymfony->createRequest($request)->query->get('expand');
        $toPsr->createResponse($response);
    },
];
$times = [];
for ($round = 0; $round < $rounds; $round++) {
    foreach ($variants as $name => $variant) {
        $started = \hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $variant();
        }
        $times[$name][] = (\hrtime(true) - $started) / 1e3 / $n;
    }
}
\printf("PHP %s, opcache %s; %d conversions x %d rounds, median\n\n", \PHP_VERSION, \ini_get('opcache.enable_cli') ? 'on' : 'off', $n, $rounds);
echo "| conversion (request in + response out) | µs |\n|---|---:|\n";
foreach ($times as $name => $values) {
    \sort($values);
    \printf("| %s | %.2f |\n", $name, $values[\intdiv(\count($values), 2)]);
}
