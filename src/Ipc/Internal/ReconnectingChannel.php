<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
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
    /** @var Future<FramedConnection>|null */
    private ?Future $connecting = null;

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
        if ($this->connecting !== null) {
            return $this->connecting->await();
        }
        $this->connection = null; // lets the old connection go before a new one opens
        /** @var DeferredFuture<FramedConnection> $attempt */
        $attempt = new DeferredFuture();
        $this->connecting = $attempt->future();
        try {
            $connection = ($this->open)();
            $attempt->complete($connection);

            return $this->connection = $connection;
        } catch (\Throwable $error) {
            $attempt->fail($error);
            $attempt->future()->ignore();
            throw $error;
        } finally {
            $this->connecting = null;
        }
    }
}
