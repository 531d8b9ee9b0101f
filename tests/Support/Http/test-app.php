<?php

declare(strict_types=1);

/*
 * The application the HTTP integration tests serve (bin/bobbin serve tests/Support/Http/test-app.php).
 *   /info            JSON of what the server handed to the application
 *   /echo            the request body back, with its Content-Type
 *   /slow?ms=N       answers after N ms (a fiber wait, other requests go on)
 *   /block?ms=N      blocks the whole worker for N ms (usleep), then answers
 *   /spin?ms=N       holds the worker's CPU for N ms (a loop that never yields), then answers
 *   /sleep?s=N       sleep(N) (blocking the worker), then answers how long it slept, measured inside (seconds)
 *   /throw           the handler throws
 *   /stream?bytes=N  N bytes of unknown size (chunked in 1.1, close-delimited in 1.0)
 *   /big?bytes=N     N bytes of known size
 *   /events?count=N&ms=M&first_ms=F&token=T  N server-sent events M ms apart (the first after F ms)
 *                    from a generator (EventStream); with a token, how the generator ended
 *                    (completed, cancelled, abandoned) is written to a file the test reads
 *   /status?code=N   an empty response with that status
 *   /upload-paths    JSON of the temporary files of the request's uploads (they must be gone after it)
 *   /classic?what=W  PHP's own response functions: echo, header, cookie, code, sent, flush (see the route)
 *   /bad-header?kind=K  a response (of a PSR-7 class that checks nothing) with a header the
 *                    server must refuse: crlf-name, crlf-value, nul-value
 *   /bad-status?code=N  a response of that class with any status (99, 1000: none may go out)
 *   /outcome?kind=K  past --request-timeout, the three outcomes: `cancellable` (a wait that takes
 *                    the request's cancellation: ends, not done), `finishes` (ignores it and
 *                    answers 201 after ms=N), `lost` (throws an OutcomeUnknown at once)
 *   anything else    "Hello, World!"
 */

use Bobbin\Async\Async;
use Bobbin\Async\CancelledException;
use Bobbin\Frameworks\Symfony\StreamedBody;
use Bobbin\Http\Message\EventStream;
use Bobbin\Http\Message\ServerSentEvent;
use Bobbin\Http\RequestCancellation;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Tests\Support\Http\GeneratedStream;
use Bobbin\Tests\Support\Http\UncheckedResponse;
use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

return static function (ServerRequestInterface $request): ResponseInterface {
    $query = $request->getQueryParams();
    switch ($request->getUri()->getPath()) {
        case '/info':
            return new Response(200, ['Content-Type' => 'application/json'], \json_encode([
                'method' => $request->getMethod(),
                'target' => $request->getRequestTarget(),
                'uri' => (string) $request->getUri(),
                'protocol' => $request->getProtocolVersion(),
                'headers' => $request->getHeaders(),
                'query' => $query,
                'cookies' => $request->getCookieParams(),
                'server' => $request->getServerParams(),
                'body' => (string) $request->getBody(),
                'request_id' => $request->getAttribute('bobbin.request_id'),
            ], \JSON_THROW_ON_ERROR));
        case '/outcome':
            switch ($query['kind'] ?? '') {
                case 'cancellable':
                    Async::delay(10.0, RequestCancellation::of($request));
                    break;
                case 'finishes':
                    Async::delay(((int) ($query['ms'] ?? 100)) / 1000);

                    return new Response(201, ['Content-Type' => 'text/plain'], 'written');
                case 'lost':
                    throw new ConnectionLostException('The connection was lost while the statement ran');
            }

            return new Response(200, ['Content-Type' => 'text/plain'], 'outcome');
        case '/echo':
            $headers = $request->hasHeader('Content-Type') ? ['Content-Type' => $request->getHeaderLine('Content-Type')] : [];

            return new Response(200, $headers, (string) $request->getBody());
        case '/slow':
            Async::delay(((int) ($query['ms'] ?? 100)) / 1000);

            return new Response(200, ['Content-Type' => 'text/plain'], 'slow done');
        case '/block':
            \usleep(((int) ($query['ms'] ?? 100)) * 1000); // blocking on purpose: what the watchdog must see

            return new Response(200, ['Content-Type' => 'text/plain'], 'blocked');
        case '/spin':
            $until = \hrtime(true) + ((int) ($query['ms'] ?? 100)) * 1_000_000;
            while (\hrtime(true) < $until) { // spinning on purpose: what the watchdog must see
            }

            return new Response(200, ['Content-Type' => 'text/plain'], 'spun');
        case '/sleep':
            $started = \hrtime(true);
            \sleep((int) ($query['s'] ?? 1)); // blocking on purpose: a safety net must not cut it short

            return new Response(200, ['Content-Type' => 'text/plain'], \sprintf('%.6f', (\hrtime(true) - $started) / 1e9));
        case '/throw':
            throw new \RuntimeException('secret detail that must not reach the client');
        case '/stream':
            return new Response(200, ['Content-Type' => 'application/octet-stream'], new GeneratedStream((int) ($query['bytes'] ?? 1000), false));
        case '/events':
            $cancellation = RequestCancellation::of($request);
            $token = (string) \preg_replace('/\W/', '', (string) ($query['token'] ?? ''));

            return EventStream::response(static function () use ($query, $cancellation, $token): \Generator {
                $outcome = 'abandoned';
                try {
                    Async::delay((int) ($query['first_ms'] ?? 0) / 1000, $cancellation);
                    for ($i = 1, $count = (int) ($query['count'] ?? 3); $i <= $count; $i++) {
                        if ($i > 1) {
                            Async::delay((int) ($query['ms'] ?? 300) / 1000, $cancellation);
                        }
                        yield new ServerSentEvent("event $i", id: (string) $i);
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
        case '/big':
            return new Response(200, ['Content-Type' => 'application/octet-stream'], new GeneratedStream((int) ($query['bytes'] ?? 1000), true));
        case '/upload-paths':
            $paths = [];
            $files = $request->getUploadedFiles();
            \array_walk_recursive($files, static function ($file) use (&$paths): void {
                if ($file instanceof \Bobbin\Http\Message\UploadedFile) {
                    $paths[] = $file->temporaryPath();
                }
            });

            return new Response(200, ['Content-Type' => 'application/json'], \json_encode(['paths' => $paths, 'exist' => \array_map('is_file', $paths)], \JSON_THROW_ON_ERROR));
        case '/classic':
            switch ($query['what'] ?? '') {
                case 'echo':
                    echo 'stray ';
                    print 'output ';

                    return new Response(200, ['Content-Type' => 'text/plain'], 'body');
                case 'header':
                    \header('X-Classic: yes');
                    \header('X-Own: from header()');
                    \setcookie('sid', 'abc', ['path' => '/', 'httponly' => true]);

                    return new Response(200, ['X-Own' => 'from the response', 'Set-Cookie' => 'other=1'], 'ok');
                case 'header-then-wait':
                    // header() and echo, then a wait: requests that run meanwhile must not take them.
                    \header('X-Classic: yes');
                    echo 'mine ';
                    Async::delay(0.1);

                    return new Response(200, [], 'waited');
                case 'code':
                    \http_response_code(404);

                    return new Response(201, [], 'created');
                case 'flush':
                    // A stray flush() outside any streamed body: the echo still joins the body.
                    echo 'stray ';
                    @\ob_flush();
                    \flush();
                    \header('X-After-Flush: works');

                    return new Response(200, ['Content-Type' => 'text/plain'], \headers_sent() ? 'sent' : 'body');
                case 'streamed-flush':
                    // A framework adapter's streamed body: its flush() hooks the SAPI's flush for the worker.
                    return new Response(200, ['Content-Type' => 'text/plain'], new StreamedBody(static function (): void {
                        echo 'streamed';
                        \flush();
                    }, null));
                case 'streamed-big':
                    // Twenty flushes of 1 MiB each (bytes numbered by flush), never a wait.
                    return new Response(200, ['Content-Type' => 'text/plain'], new StreamedBody(static function (): void {
                        for ($i = 0; $i < 20; $i++) {
                            echo \str_repeat(\chr(65 + $i), 1 << 20);
                            \flush();
                        }
                    }, null));
                case 'sent':
                    echo 'x';
                    $sent = \headers_sent();
                    \header('X-After-Echo: works');

                    return new Response(200, [], $sent ? 'sent' : 'not sent');
            }

            return new Response(400);
        case '/bad-header':
            return new UncheckedResponse(200, match ($query['kind'] ?? '') {
                'crlf-name' => ["X-A\r\nSet-Cookie: evil=1\r\nX-B" => ['b']],
                'crlf-value' => ['X-A' => ["a\r\nSet-Cookie: evil=1"]],
                'nul-value' => ['X-A' => ["a\0b"]],
                default => ['X-Fine' => ['fine']],
            }, 'body');
        case '/bad-status':
            return new UncheckedResponse((int) ($query['code'] ?? 200), [], 'body');
        case '/status':
            return new Response((int) ($query['code'] ?? 200));
        default:
            return new Response(200, ['Content-Type' => 'text/plain'], 'Hello, World!');
    }
};
