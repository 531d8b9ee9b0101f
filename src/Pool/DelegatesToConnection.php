<?php

declare(strict_types=1);

namespace Bobbin\Pool;

/**
 * The Connector methods every client answers the same way, by asking the connection itself:
 * its isAlive() (the cheap check before a hand-out), close(), openedAt() and lastUsedAt(). A
 * client's connector writes what its protocol decides (open, ping, reuse) and uses this for
 * the rest.
 */
trait DelegatesToConnection
{
    public function isAlive(object $connection): bool
    {
        return $connection->isAlive();
    }

    public function close(object $connection): void
    {
        $connection->close();
    }

    public function openedAt(object $connection): float
    {
        return $connection->openedAt();
    }

    public function lastUsedAt(object $connection): float
    {
        return $connection->lastUsedAt();
    }
}
