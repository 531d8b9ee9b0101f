<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\DeferredFuture;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

/**
 * A request waiting in the legacy gateway for a script run, and what became of it: once
 * $started, its script is running (or ran), so only the run can say what it did.
 *
 * @internal between LegacyGateway and the script loops
 */
final class QueuedRequest
{
    public bool $started = false;
    /** @var DeferredFuture<ResponseInterface> */
    public readonly DeferredFuture $response;

    public function __construct(public readonly ServerRequestInterface $request)
    {
        $this->response = new DeferredFuture();
    }
}
