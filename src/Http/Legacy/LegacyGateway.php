<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Bobbin\Async\Channel;
use Bobbin\Async\ChannelClosedException;
use Bobbin\Async\DeferredFuture;
use Bobbin\Http\RequestCancellation;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * The server's side of the legacy mode: every request is queued for the script loop
 * (LegacyLoop, at the global scope), which takes them one at a time, and its connection waits
 * for the response the loop makes. A request whose client left or whose time ran out while it
 * waited in the queue is skipped.
 */
final class LegacyGateway implements RequestHandlerInterface
{
    /** @var Channel<array{ServerRequestInterface, DeferredFuture<ResponseInterface>}> */
    private readonly Channel $queue;

    public function __construct(int $capacity = 4096)
    {
        $this->queue = new Channel($capacity);
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $cancellation = RequestCancellation::of($request);
        /** @var DeferredFuture<ResponseInterface> $response */
        $response = new DeferredFuture();
        $this->queue->send([$request, $response], $cancellation);

        return $response->future()->await($cancellation);
    }

    /**
     * The next request still wanted, waiting for one (the loop runs meanwhile); null once the
     * gateway is closed and empty.
     *
     * @return array{ServerRequestInterface, DeferredFuture<ResponseInterface>}|null
     */
    public function next(): ?array
    {
        while (true) {
            try {
                $item = $this->queue->receive();
            } catch (ChannelClosedException) {
                return null;
            }
            if (RequestCancellation::of($item[0])?->isRequested() !== true) {
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
