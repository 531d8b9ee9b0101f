<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Channel;
use Bobbin\Async\ChannelClosedException;
use Bobbin\Http\Message\Response;
use Bobbin\Http\RequestCancellation;
use Closure;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * The server's side of the legacy mode: every request is queued for the script loop (a
 * ScriptLoop, at the global scope), and its connection waits for the response the loop makes.
 * A request whose client left or whose time ran out while it waited in the queue is skipped,
 * and its client gets the "not done" answer (503 past its deadline). Once its script has
 * started, only the run can tell what it did: the connection waits for its answer (the
 * isolated loop ends a script past its deadline and answers "outcome unknown").
 */
final class LegacyGateway implements RequestHandlerInterface
{
    /** @var Channel<QueuedRequest> */
    private readonly Channel $queue;
    /** @var (Closure(QueuedRequest, ?Cancellation): void)|null */
    private ?Closure $inPlace = null;

    /** @param DocumentRoot|null $documentRoot --legacy-docroot: each request runs the file its path names */
    public function __construct(int $capacity = 4096, private readonly ?DocumentRoot $documentRoot = null)
    {
        $this->queue = new Channel($capacity);
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        if ($this->documentRoot !== null) {
            // Routed here, in the worker: a request that runs nothing costs no process.
            $route = $this->documentRoot->route($request->getUri()->getPath());
            if ($route->outcome !== RouteOutcome::Script) {
                return self::refusal($request, $route);
            }
            $request = $request->withAttribute(ScriptRoute::ATTRIBUTE, $route);
        }
        $cancellation = RequestCancellation::of($request);
        $queued = new QueuedRequest($request);
        if ($this->inPlace !== null) {
            // Throws CancelledException while it waits for its turn: nothing was done.
            ($this->inPlace)($queued, $cancellation);

            return $queued->response->future()->await();
        }
        $this->queue->send($queued, $cancellation);
        try {
            return $queued->response->future()->await($cancellation);
        } catch (CancelledException $cancelled) {
            if (!$queued->started) {
                throw $cancelled;
            }

            return $queued->response->future()->await();
        }
    }

    /**
     * The next request still wanted, waiting for one (the loop runs meanwhile), marked started;
     * null once the gateway is closed and empty.
     */
    public function next(): ?QueuedRequest
    {
        while (true) {
            try {
                $item = $this->queue->receive();
            } catch (ChannelClosedException) {
                return null;
            }
            if (RequestCancellation::of($item->request)?->isRequested() !== true) {
                $item->started = true;

                return $item;
            }
        }
    }

    /** What nginx answers when try_files finds nothing to run, or a directory lacks its slash. */
    private static function refusal(ServerRequestInterface $request, ScriptRoute $route): ResponseInterface
    {
        if ($route->outcome === RouteOutcome::AddSlash) {
            $uri = $request->getUri();
            $query = $uri->getQuery();
            // nginx's absolute redirect: the scheme and Host header of the request, the query kept.
            $authority = $uri->getAuthority();
            $location = ($authority === '' ? '' : $uri->getScheme() . '://' . $authority)
                . \implode('/', \array_map(\rawurlencode(...), \explode('/', $route->scriptName)))
                . ($query === '' ? '' : '?' . $query);

            return new Response(301, ['Location' => $location, 'Content-Type' => 'text/plain; charset=utf-8'], "Moved permanently to $location\n");
        }
        $status = match ($route->outcome) {
            RouteOutcome::Forbidden => 403,
            RouteOutcome::BadRequest => 400,
            default => 404,
        };

        return new Response($status, ['Content-Type' => 'text/plain; charset=utf-8'], \sprintf("%d: %s\n", $status, $route->reason));
    }

    /**
     * Requests are run where they arrive, in their connection's fiber, by $run — which completes
     * each one's response, or throws CancelledException if it gave up before the script started
     * — instead of queued for next() (the legacy pool: no script runs at the global scope).
     *
     * @param Closure(QueuedRequest, ?Cancellation): void $run
     */
    public function runInPlace(Closure $run): void
    {
        $this->inPlace = $run;
    }

    /** No more requests will come: next() returns null once the queue is empty. */
    public function close(): void
    {
        $this->queue->close();
    }
}
