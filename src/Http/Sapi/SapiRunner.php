<?php

declare(strict_types=1);

namespace Bobbin\Http\Sapi;

use Bobbin\Async\Async;
use Nyholm\Psr7\Factory\Psr17Factory;
use Nyholm\Psr7Server\ServerRequestCreator;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * Runs a Bobbin application under a classic SAPI (PHP-FPM): the request from PHP's globals is
 * handled in a fiber and the event loop is driven until the response is ready, so application
 * code that awaits (database queries, timers) runs unchanged.
 */
final class SapiRunner
{
    public function __construct(
        private readonly ResponseEmitter $emitter = new ResponseEmitter(),
    ) {
        // Before the application's first wait: the autoloader leaves the loop alone.
        Async::installLoopDriver();
    }

    public function run(RequestHandlerInterface $handler): void
    {
        $factory = new Psr17Factory();
        $request = (new ServerRequestCreator($factory, $factory, $factory, $factory))->fromGlobals();
        $response = Async::run(static fn () => $handler->handle($request))->await();
        $this->emitter->emit($response, $request->getMethod() !== 'HEAD');
    }
}
