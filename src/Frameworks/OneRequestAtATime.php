<?php

declare(strict_types=1);

namespace Bobbin\Frameworks;

use Bobbin\Http\RequestCancellation;
use Closure;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * A PSR-15 decorator that lets one request at a time into the handler it wraps (per worker),
 * and runs the application's resets after each one before the next is let in.
 *
 * Only the application is serialised: the server goes on accepting and reading, requests queue
 * at the gate in arrival order, and each waits with its own cancellation (a request whose
 * deadline passes or whose client leaves while queued never enters). Under PHP-FPM, where a
 * process has one request anyway, the gate is always open.
 */
final class OneRequestAtATime implements RequestHandlerInterface
{
    private readonly RequestGate $gate;

    /**
     * @param list<Closure(): void> $afterEach resets run after every request, in order (e.g.
     *        StaticProperties::restore(...)); one that throws does not stop the others
     */
    public function __construct(
        private readonly RequestHandlerInterface $handler,
        private readonly array $afterEach = [],
    ) {
        $this->gate = new RequestGate(Concurrency::OneAtATime);
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $cancellation = RequestCancellation::of($request);
        $lock = $this->gate->enter($cancellation);
        if ($lock !== null) {
            // One request inside: framework code that cannot be handed the cancellation (a
            // database connection) finds it here.
            RequestScope::enter($cancellation);
        }
        try {
            return $this->handler->handle($request);
        } finally {
            try {
                Resets::run($this->afterEach);
            } finally {
                if ($lock !== null) {
                    RequestScope::leave();
                    $lock->release();
                }
            }
        }
    }
}
