<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\CancelledException;
use Bobbin\Async\Channel;
use Bobbin\Async\ChannelClosedException;
use Bobbin\Http\RequestCancellation;
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

    public function __construct(int $capacity = 4096)
    {
        $this->queue = new Channel($capacity);
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $cancellation = RequestCancellation::of($request);
        $queued = new QueuedRequest($request);
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

    /** No more requests will come: next() returns null once the queue is empty. */
    public function close(): void
    {
        $this->queue->close();
    }
}
