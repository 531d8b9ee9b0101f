<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Ipc\Internal\ReconnectingChannel;
use Bobbin\Ipc\Internal\ShmConnection;

/**
 * Requests through a shared-memory ring the daemon sets up over its unix socket. Waits go
 * through eventfd doorbells watched by the event loop, so a fiber waiting here never blocks
 * the loop. Needs ext-ffi usable in this SAPI (the CLI by default) and ext-sockets.
 */
final class ShmClient implements IpcClient
{
    use OwnsResources;

    private readonly ReconnectingChannel $channel;

    /**
     * @param int $ringCapacity bytes per direction (rounded up to 4 KiB by the daemon); a request
     *        must fit in it
     * @param float $livenessInterval how often a waiting client checks that the daemon lives
     */
    public function __construct(
        string $socketPath,
        int $ringCapacity = 4 * 1024 * 1024,
        float $connectTimeout = 5.0,
        float $livenessInterval = 0.1,
    ) {
        $this->channel = new ReconnectingChannel(static fn (): ShmConnection => ShmConnection::open(
            $socketPath,
            $ringCapacity,
            $connectTimeout,
            $livenessInterval,
        ));
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
