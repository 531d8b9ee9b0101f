<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Ipc\Internal\SocketConnection;

/**
 * Framed requests over a unix or TCP stream socket. The connection is opened on the first
 * request and again on the first request after it was lost.
 */
final class SocketClient implements IpcClient
{
    private ?SocketConnection $connection = null;
    /** @var Future<SocketConnection>|null */
    private ?Future $connecting = null;
    private int $nextId = 1;

    public function __construct(
        private readonly Endpoint $endpoint,
        private readonly float $connectTimeout = 5.0,
        private readonly int $maxFrame = 16 * 1024 * 1024,
    ) {
    }

    public function request(string $payload, ?Cancellation $cancellation = null): string
    {
        $connection = $this->connection;
        if ($connection === null || !$connection->isOpen()) {
            $connection = $this->connect();
        }
        $id = $this->nextId;
        $this->nextId = $id === 0xFFFFFFFF ? 1 : $id + 1;

        return $connection->request($id, $payload, $cancellation);
    }

    public function close(): void
    {
        $this->connection?->close();
        $this->connection = null;
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * The first fiber without a connection opens it; fibers arriving meanwhile wait for that
     * attempt and share its result or its error.
     */
    private function connect(): SocketConnection
    {
        if ($this->connecting !== null) {
            return $this->connecting->await();
        }
        $this->connection = null; // lets the old connection go before a new one opens
        /** @var DeferredFuture<SocketConnection> $attempt */
        $attempt = new DeferredFuture();
        $this->connecting = $attempt->future();
        try {
            $connection = SocketConnection::open($this->endpoint, $this->connectTimeout, $this->maxFrame);
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
