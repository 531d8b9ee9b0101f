<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SharedAttempt;
use Closure;

/**
 * What every IpcClient shares: a connection opened on the first request and again on the first
 * request after it was lost, and one connect attempt shared by every fiber that arrives while it
 * runs (each waits for it within its own cancellation; the connect is bounded by its timeout).
 *
 * @internal
 */
final class ReconnectingChannel
{
    use OwnsResources;

    private ?FramedConnection $connection = null;
    /** @var SharedAttempt<FramedConnection> */
    private readonly SharedAttempt $connects;

    /** @param Closure(): FramedConnection $open */
    public function __construct(private readonly Closure $open)
    {
        $this->connects = new SharedAttempt();
    }

    public function request(string $payload, ?Cancellation $cancellation): string
    {
        $connection = $this->connection;
        if ($connection === null || !$connection->isOpen()) {
            $connection = $this->connects->await($this->connect(...), $cancellation);
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
        $this->connection = null; // lets the old connection go before a new one opens

        return $this->connection = ($this->open)();
    }
}
