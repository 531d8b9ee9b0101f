<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Closure;

/**
 * What every IpcClient shares: a connection opened on the first request and again on the first
 * request after it was lost, and one connect attempt shared by every fiber that arrives while it
 * runs.
 *
 * @internal
 */
final class ReconnectingChannel
{
    private ?FramedConnection $connection = null;
    private bool $connecting = false;
    /**
     * The running attempt, for fibers that arrive while it runs; made by the first of them only
     * (a lone caller's reconnect creates no future).
     *
     * @var DeferredFuture<FramedConnection>|null
     */
    private ?DeferredFuture $attempt = null;

    /** @param Closure(): FramedConnection $open */
    public function __construct(private readonly Closure $open)
    {
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        $connection = $this->connection;
        if ($connection === null || !$connection->isOpen()) {
            $connection = $this->connect();
        }

        return $connection->request($payload, $cancellation);
    }

    public function close(): void
    {
        $this->connection?->close();
        $this->connection = null;
    }

    private function connect(): FramedConnection
    {
        if ($this->connecting) {
            /** @var DeferredFuture<FramedConnection> $attempt */
            $attempt = $this->attempt ??= new DeferredFuture();

            return $attempt->future()->await();
        }
        $this->connection = null; // lets the old connection go before a new one opens
        $this->connecting = true;
        try {
            $connection = ($this->open)();
        } catch (\Throwable $error) {
            $this->connecting = false;
            $attempt = $this->attempt;
            $this->attempt = null;
            $attempt?->fail($error); // only fibers that await it get it
            throw $error;
        }
        $this->connecting = false;
        $this->connection = $connection;
        $attempt = $this->attempt;
        $this->attempt = null;
        $attempt?->complete($connection);

        return $connection;
    }
}
