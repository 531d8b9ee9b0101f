<?php

declare(strict_types=1);

namespace Bobbin\Http;

use Closure;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/** Lets an APP_FILE return a plain closure instead of a PSR-15 handler class. */
final class ClosureHandler implements RequestHandlerInterface
{
    /** @param Closure(ServerRequestInterface): ResponseInterface $closure */
    public function __construct(private readonly Closure $closure)
    {
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $response = ($this->closure)($request);
        if (!$response instanceof ResponseInterface) {
            throw new \UnexpectedValueException(\sprintf(
                'The application closure returned %s instead of a %s',
                \get_debug_type($response),
                ResponseInterface::class,
            ));
        }

        return $response;
    }
}
