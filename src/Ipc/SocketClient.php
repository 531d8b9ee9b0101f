<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Ipc\Internal\ReconnectingChannel;
use Bobbin\Ipc\Internal\SocketConnection;

/**
 * Framed requests over a unix or TCP stream socket. The connection is opened on the first
 * request and again on the first request after it was lost.
 */
final class SocketClient implements IpcClient
{
    use OwnsResources;

    private readonly ReconnectingChannel $channel;

    public function __construct(
        Endpoint $endpoint,
        float $connectTimeout = 5.0,
        int $maxFrame = 16 * 1024 * 1024,
    ) {
        $this->channel = new ReconnectingChannel(
            static fn (): SocketConnection => SocketConnection::open($endpoint, $connectTimeout, $maxFrame),
        );
    }

    public function request(string $payload, ?Cancellation $cancellation = null): string
    {
        return $this->channel->request($payload, $cancellation);
    }

    public function close(): void
    {
        $this->channel->close();
    }

    public function __destruct()
    {
        $this->close();
    }
}
