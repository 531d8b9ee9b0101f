<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\Future;
use Bobbin\Pool\Connector;

/** @implements Connector<FakeConnection> */
final class FakeConnector implements Connector
{
    public int $opened = 0;
    public ?\Throwable $openFails = null;
    public float $openDelay = 0.0;

    public function open(?Cancellation $cancellation): object
    {
        if ($this->openDelay > 0.0) {
            Async::delay($this->openDelay, $cancellation);
        }
        if ($this->openFails !== null) {
            throw $this->openFails;
        }

        return new FakeConnection(++$this->opened);
    }

    public function isAlive(object $connection): bool
    {
        return $connection->alive && !$connection->closed;
    }

    public function ping(object $connection): bool
    {
        $connection->pings++;

        return $connection->pingSucceeds;
    }

    public function prepareForReuse(object $connection): Future|false|null
    {
        if ($connection->closed) {
            return false;
        }
        $ready = $connection->onReturn;
        $connection->onReturn = null;
        \assert($ready === null || $ready === false || $ready instanceof Future);

        return $ready;
    }

    public function close(object $connection): void
    {
        $connection->closed = true;
    }

    public function openedAt(object $connection): float
    {
        return $connection->openedAt;
    }

    public function lastUsedAt(object $connection): float
    {
        return $connection->lastUsedAt;
    }
}
