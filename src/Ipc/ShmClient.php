<?php

declare(strict_types=1);

namespace Bobbin\Ipc;

use Bobbin\Async\Cancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\Future;
use Bobbin\Ipc\Internal\ShmConnection;

/**
 * Requests through a shared-memory ring the daemon sets up over its unix socket. Waits go
 * through eventfd doorbells watched by the event loop, so a fiber waiting here never blocks
 * the loop. Needs ext-ffi usable in this SAPI (the CLI by default) and ext-sockets.
 */
final class ShmClient implements IpcClient
{
    private ?ShmConnection $connection = null;
    /** @var Future<ShmConnection>|null */
    private ?Future $connecting = null;
    private int $nextId = 1;

    /**
     * @param int $ringCapacity bytes per direction (rounded up to 4 KiB by the daemon); a request
     *        must fit in it
     * @param float $livenessInterval how often a waiting client checks that the daemon lives
     */
    public function __construct(
        private readonly string $socketPath,
        private readonly int $ringCapacity = 4 * 1024 * 1024,
        private readonly float $connectTimeout = 5.0,
        private readonly float $livenessInterval = 0.1,
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
    private function connect(): ShmConnection
    {
        if ($this->connecting !== null) {
            return $this->connecting->await();
        }
        $this->connection = null; // lets the old connection go before a new one opens
        /** @var DeferredFuture<ShmConnection> $attempt */
        $attempt = new DeferredFuture();
        $this->connecting = $attempt->future();
        try {
            $connection = ShmConnection::open(
                $this->socketPath,
                $this->ringCapacity,
                $this->connectTimeout,
                $this->livenessInterval,
            );
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
