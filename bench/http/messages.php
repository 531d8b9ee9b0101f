<?php

declare(strict_types=1);

/*
 * CPU cost of the PSR-7 messages on the server's path, per request + response, in this process:
 *
 *   php -d opcache.enable_cli=1 bench/http/messages.php [--n=20000] [--rounds=7]
 *
 * One iteration does what one aircraft CRUD request costs in messages, without sockets or the
 * database: build the ServerRequest from a parsed head as Connection::buildRequest() does, read
 * what the aircraft application reads (method, URI path, query or body), build the JSON response
 * as JsonResponses does, and read it back as Connection::respond() does (status, reason, header
 * loop, body), then drop both. The four CRUD requests alternate (POST, GET, PUT, DELETE, plus a
 * list with a query string).
 *
 *   nyholm       the previous code: nyholm ServerRequest (+ withQueryParams/withCookieParams/
 *                withRequestTarget as buildRequest did) and `new Nyholm\Psr7\Response(...)`
 *   nyholm-psr17 nyholm request, responses through JsonResponses with nyholm's Psr17Factory
 *   bobbin       Bobbin\Http\Message: ServerRequest::fromParsed(), JsonResponses with
 *                MessageFactory, the StringStream fast path in respond()
 *
 * A second table measures the request side from raw bytes, per request, over the four
 * requests of one CRUD cycle as a typical client sends them (POST /aircraft with a JSON body,
 * GET, PUT and DELETE /aircraft/123; Host, User-Agent, Accept, Accept-Encoding, Connection,
 * and Content-Type/Content-Length where there is a body), through one RequestParser as on a
 * keep-alive connection:
 *
 *   parse        RequestParser::nextHead() (+ readBody()) alone
 *   parse+uri    the same, then ServerRequest::fromParsed() and getUri()->getPath() (the router)
 *   full         parse, fromParsed, what the application reads, the JSON response built
 *                through MessageFactory and read back as Connection::respond() does
 *
 * The variants run interleaved, round after round; the median per variant is printed. Only
 * this one process runs, on one CPU, for a few seconds.
 */

use Bobbin\Apps\Aircraft\Http\JsonResponses;
use Bobbin\Http\Message\MessageFactory;
use Bobbin\Http\Message\Response;
use Bobbin\Http\Message\ServerRequest;
use Bobbin\Http\Message\StringStream;
use Bobbin\Http\RequestHead;
use Bobbin\Http\RequestParser;
use Nyholm\Psr7\Factory\Psr17Factory;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';
Bobbin\Async\Async::installLoopDriver(); // docs/ASYNC.md: the autoloader leaves the loop alone

$options = \getopt('', ['n::', 'rounds::']);
$n = \max(1, (int) ($options['n'] ?? 20000));
$rounds = \max(1, (int) ($options['rounds'] ?? 7));

// The requests of a CRUD cycle as the load generator sends them, parsed once by the real parser.
$aircraft = ['id' => 123, 'number' => 'N-1234', 'title' => 'Cessna 172', 'serial_number' => 'SN-998877', 'assembly_date' => '2019-05-04', 'added_at' => '2024-01-02T03:04:05+00:00'];
$json = \json_encode($aircraft, \JSON_THROW_ON_ERROR);
$common = "Host: 127.0.0.1:18085\r\nUser-Agent: bobbin-loadgen/1.0\r\nAccept: application/json\r\n";
$raw = [
    ['POST /aircraft HTTP/1.1', "{$common}Content-Type: application/json\r\nContent-Length: " . \strlen($json), $json, 201],
    ['GET /aircraft/123 HTTP/1.1', $common, '', 200],
    ['PUT /aircraft/123 HTTP/1.1', "{$common}Content-Type: application/json\r\nContent-Length: " . \strlen($json), $json, 200],
    ['DELETE /aircraft/123 HTTP/1.1', $common, '', 204],
    ['GET /aircraft?after_id=100&limit=20 HTTP/1.1', $common, '', 200],
];
/** @var list<array{RequestHead, string, int}> $cases */
$cases = [];
foreach ($raw as [$line, $headers, $body, $status]) {
    $parser = new RequestParser();
    $parser->buffer = $line . "\r\n" . \rtrim($headers, "\r\n") . "\r\n\r\n" . $body;
    $head = $parser->nextHead() ?? throw new \LogicException('incomplete head');
    $cases[] = [$head, $head->hasBody() ? (string) $parser->readBody($head) : '', $status];
}
$serverParams = ['REMOTE_ADDR' => '127.0.0.1', 'REMOTE_PORT' => 50000, 'SERVER_ADDR' => '127.0.0.1', 'SERVER_PORT' => 18085, 'SERVER_SOFTWARE' => 'Bobbin'];

/** The old Connection::buildRequest(), verbatim but for the class name. */
$nyholmRequest = static function (RequestHead $head, string $body, float $now) use ($serverParams): ServerRequestInterface {
    $target = $head->target;
    $host = $head->host === null || $head->host === '' ? '127.0.0.1:18085' : $head->host;
    $absolute = $target[0] !== '/';
    $uri = !$absolute ? 'http://' . $host . $target : ($target === '*' ? 'http://' . $host : $target);
    $params = $serverParams;
    $params['REQUEST_METHOD'] = $head->method;
    $params['REQUEST_URI'] = $target;
    $params['SERVER_PROTOCOL'] = 'HTTP/' . $head->protocolVersion;
    $params['REQUEST_TIME'] = (int) $now;
    $params['REQUEST_TIME_FLOAT'] = $now;
    $request = new \Nyholm\Psr7\ServerRequest($head->method, $uri, $head->headers, $body === '' ? null : $body, $head->protocolVersion, $params);
    $query = \strpos($target, '?');
    if ($query !== false) {
        $queryString = \substr($target, $query + 1);
        $hash = \strpos($queryString, '#');
        \parse_str($hash === false ? $queryString : \substr($queryString, 0, $hash), $queryParams);
        $request = $request->withQueryParams($queryParams);
    }
    // (No Cookie header in these requests: the cookie branch never ran.)
    if ($absolute || \strspn($target, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%") !== \strlen($target)) {
        $request = $request->withRequestTarget($target);
    }

    return $request;
};

/** The new Connection::buildRequest(). */
$bobbinRequest = static function (RequestHead $head, string $body, float $now) use ($serverParams): ServerRequestInterface {
    $params = $serverParams;
    $params['REQUEST_METHOD'] = $head->method;
    $params['REQUEST_URI'] = $head->target;
    $params['SERVER_PROTOCOL'] = 'HTTP/' . $head->protocolVersion;
    $params['REQUEST_TIME'] = (int) $now;
    $params['REQUEST_TIME_FLOAT'] = $now;

    return ServerRequest::fromParsed($head->method, $head->target, $head->protocolVersion, $head->headers, $head->host, '127.0.0.1:18085', $body, $params, $head->cookie);
};

/** What the aircraft application reads of a request (router, then the action). */
$application = static function (ServerRequestInterface $request): void {
    $request->getMethod();
    $request->getUri()->getPath();
    if ($request->getMethod() === 'GET') {
        $request->getQueryParams();
    } elseif ($request->getMethod() !== 'DELETE') {
        \json_decode((string) $request->getBody(), true, 512, \JSON_THROW_ON_ERROR);
    }
};

/** What Connection::respond() reads of a response, without the socket; returns the bytes. */
$respond = static function (ResponseInterface $response): string {
    $out = 'HTTP/1.1 ' . $response->getStatusCode() . ' ' . $response->getReasonPhrase() . "\r\n";
    $trusted = $response instanceof Response; // validated when set: no line-break check
    foreach ($response->getHeaders() as $name => $values) {
        \strtolower((string) $name);
        if ($trusted) {
            $out .= $name . ': ' . (isset($values[1]) ? \implode("\r\n" . $name . ': ', $values) : $values[0]) . "\r\n";
            continue;
        }
        foreach ($values as $value) {
            if (\strpbrk($value, "\r\n") === false) {
                $out .= $name . ': ' . $value . "\r\n";
            }
        }
    }
    if ($response->getStatusCode() === 204) {
        return $out . "\r\n";
    }
    $stream = $response->getBody();
    if ($stream instanceof StringStream) {
        $contents = $stream->contents();

        return $out . 'Content-Length: ' . \strlen($contents) . "\r\n\r\n" . $contents;
    }
    $size = $stream->getSize();
    $out .= 'Content-Length: ' . $size . "\r\n\r\n";
    if ($size === 0) {
        return $out;
    }
    if ($size !== null && $size <= 65536 && $stream->isSeekable()) {
        $contents = (string) $stream;
        if (\strlen($contents) === $size) {
            return $out . $contents;
        }
    }
    throw new \LogicException('not reached with these bodies');
};

/** The old JsonResponses::json() / noContent(). */
$nyholmResponse = static fn (int $status, mixed $data): ResponseInterface => $status === 204
    ? new \Nyholm\Psr7\Response(204)
    : new \Nyholm\Psr7\Response($status, ['Content-Type' => 'application/json'], \json_encode($data, \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_THROW_ON_ERROR));
$psr17Response = static function (JsonResponses $responses): Closure {
    return static fn (int $status, mixed $data): ResponseInterface => $status === 204 ? $responses->noContent() : $responses->json($status, $data);
};
$nyholmFactory = new Psr17Factory();
$bobbinFactory = new MessageFactory();
$variants = [
    'nyholm' => [$nyholmRequest, $nyholmResponse],
    'nyholm-psr17' => [$nyholmRequest, $psr17Response(new JsonResponses($nyholmFactory, $nyholmFactory))],
    'bobbin' => [$bobbinRequest, $psr17Response(new JsonResponses($bobbinFactory, $bobbinFactory))],
];

$run = static function (Closure $buildRequest, Closure $buildResponse) use ($cases, $n, $application, $respond, $aircraft): float {
    $count = \count($cases);
    $bytes = 0;
    $started = \hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        [$head, $body, $status] = $cases[$i % $count];
        $request = $buildRequest($head, $body, 1700000000.5);
        $application($request);
        $response = $buildResponse($status, $aircraft);
        $bytes += \strlen($respond($response));
        unset($request, $response); // objects die here, as after each request in the server
    }
    $elapsed = \hrtime(true) - $started;
    if ($bytes === 0) {
        throw new \LogicException('nothing was produced');
    }

    return $elapsed / 1000 / $n;
};

// Same bytes from every variant, or the comparison means nothing.
foreach ($cases as [$head, $body, $status]) {
    $outputs = [];
    foreach ($variants as $name => [$buildRequest, $buildResponse]) {
        $outputs[$name] = $respond($buildResponse($status, $aircraft));
    }
    if (\count(\array_unique($outputs)) !== 1) {
        throw new \LogicException('the variants disagree: ' . \var_export($outputs, true));
    }
}

$times = \array_fill_keys(\array_keys($variants), []);
foreach ($variants as [$buildRequest, $buildResponse]) {
    $run($buildRequest, $buildResponse); // warm-up
}
for ($round = 0; $round < $rounds; $round++) {
    foreach ($variants as $name => [$buildRequest, $buildResponse]) {
        $times[$name][] = $run($buildRequest, $buildResponse);
    }
}

$median = static function (array $values): float {
    \sort($values);
    $middle = \intdiv(\count($values), 2);

    return \count($values) % 2 === 1 ? $values[$middle] : ($values[$middle - 1] + $values[$middle]) / 2;
};
$baseline = $median($times['nyholm']);
\printf("PHP %s, opcache %s, JIT %s; %d iterations x %d rounds, median\n\n", \PHP_VERSION,
    \function_exists('opcache_get_status') && \is_array(@\opcache_get_status(false)) ? 'on' : 'off',
    \ini_get('opcache.jit') ?: 'off', $n, $rounds);
\printf("| %-13s | %-22s | %-8s |\n|---|---|---|\n", 'variant', 'µs per request+response', 'vs nyholm');
foreach ($times as $name => $values) {
    $value = $median($values);
    \printf("| %-13s | %22.2f | %7.0f %% |\n", $name, $value, 100 * $value / $baseline);
}

// The request side from raw bytes: the four requests of a CRUD cycle with typical client headers.
$typical = "Host: 127.0.0.1:18085\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) bobbin-bench/1.0\r\n"
    . "Accept: application/json\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: keep-alive\r\n";
$withBody = "{$typical}Content-Type: application/json\r\nContent-Length: " . \strlen($json) . "\r\n\r\n" . $json;
$wire = [
    ["POST /aircraft HTTP/1.1\r\n{$withBody}", 201],
    ["GET /aircraft/123 HTTP/1.1\r\n{$typical}\r\n", 200],
    ["PUT /aircraft/123 HTTP/1.1\r\n{$withBody}", 200],
    ["DELETE /aircraft/123 HTTP/1.1\r\n{$typical}\r\n", 204],
];
$jsonResponses = new JsonResponses($bobbinFactory, $bobbinFactory);
$parseVariants = [
    'parse' => static function (RequestHead $head, string $body, int $status): int {
        return \count($head->headers) + \strlen($body);
    },
    'parse+uri' => static function (RequestHead $head, string $body, int $status) use ($bobbinRequest): int {
        return \strlen($bobbinRequest($head, $body, 1700000000.5)->getUri()->getPath());
    },
    'full' => static function (RequestHead $head, string $body, int $status) use ($bobbinRequest, $application, $respond, $jsonResponses, $aircraft): int {
        $request = $bobbinRequest($head, $body, 1700000000.5);
        $application($request);
        $response = $status === 204 ? $jsonResponses->noContent() : $jsonResponses->json($status, $aircraft);

        return \strlen($respond($response));
    },
];
$runParsed = static function (Closure $after) use ($wire, $n): float {
    $parser = new RequestParser(); // one per connection, kept across keep-alive requests
    $count = \count($wire);
    $bytes = 0;
    $started = \hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        [$bytesIn, $status] = $wire[$i % $count];
        $parser->buffer .= $bytesIn;
        $head = $parser->nextHead() ?? throw new \LogicException('incomplete head');
        $body = $head->hasBody() ? ($parser->readBody($head) ?? throw new \LogicException('incomplete body')) : '';
        $bytes += $after($head, $body, $status);
    }
    $elapsed = \hrtime(true) - $started;
    if ($bytes === 0 || $parser->buffer !== '') {
        throw new \LogicException('the requests were not consumed as expected');
    }

    return $elapsed / 1000 / $n;
};
$parseTimes = \array_fill_keys(\array_keys($parseVariants), []);
foreach ($parseVariants as $after) {
    $runParsed($after); // warm-up
}
for ($round = 0; $round < $rounds; $round++) {
    foreach ($parseVariants as $name => $after) {
        $parseTimes[$name][] = $runParsed($after);
    }
}
\printf("\nFrom raw bytes, one CRUD cycle (POST, GET, PUT, DELETE) with typical client headers:\n\n");
\printf("| %-13s | %-22s |\n|---|---|\n", 'variant', 'µs per request');
foreach ($parseTimes as $name => $values) {
    \printf("| %-13s | %22.2f |\n", $name, $median($values));
}
