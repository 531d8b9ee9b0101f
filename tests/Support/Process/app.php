<?php

declare(strict_types=1);

/*
 * The application the process tests serve.
 *   /pid           the worker's process id
 *   /slow?ms=N     answers after N ms (a fiber wait)
 *   /grow?mb=N     keeps N more MiB alive in the worker (for --max-memory)
 *   /exit          the worker exits with code 3 right after answering
 *   /exit-now      exit(4) in the middle of the handler; /die-now: die("...") there
 *   /oom           allocates until memory_limit ends the worker with a fatal error
 *   anything else  TEST_TEXT (a constant a test may rewrite in a copy of this file), or "hello"
 */

use Bobbin\Async\Async;
use Bobbin\Async\Timer;
use Nyholm\Psr7\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

const TEST_TEXT = 'hello';

$kept = [];

return static function (ServerRequestInterface $request) use (&$kept): ResponseInterface {
    $query = $request->getQueryParams();
    switch ($request->getUri()->getPath()) {
        case '/pid':
            return new Response(200, ['Content-Type' => 'text/plain'], (string) \getmypid());
        case '/slow':
            Async::delay(((int) ($query['ms'] ?? 100)) / 1000);

            return new Response(200, ['Content-Type' => 'text/plain'], 'slow done');
        case '/grow':
            $kept[] = \str_repeat('x', ((int) ($query['mb'] ?? 1)) * 1048576);

            return new Response(200, ['Content-Type' => 'text/plain'], (string) \memory_get_usage(true));
        case '/exit-now':
            exit(4);
        case '/die-now':
            die('dying words');
        case '/oom':
            $hog = [];
            while (true) {
                $hog[] = \str_repeat('y', 1 << 20);
            }
        case '/exit':
            Timer::after(0.05, static fn () => exit(3));

            return new Response(200, ['Content-Type' => 'text/plain'], 'bye');
        default:
            return new Response(200, ['Content-Type' => 'text/plain'], TEST_TEXT);
    }
};
