<?php

declare(strict_types=1);

namespace Bobbin\Http;

/**
 * Counters of one server's connections since it started: accepted, times the connection limit
 * was met, and connections the server closed, by reason.
 */
final class ConnectionStatistics
{
    public int $accepted = 0;
    /** Accepts that found the server at its connection limit (room was made, or the accept waited). */
    public int $limitReached = 0;
    /** Of those, the times no connection could be closed to make room, so accepting waited. */
    public int $limitWaits = 0;
    /** @var array<string, int> ConnectionDrop value => count */
    private array $dropped = [];

    public function dropped(ConnectionDrop $reason): void
    {
        $this->dropped[$reason->value] = ($this->dropped[$reason->value] ?? 0) + 1;
    }

    public function droppedFor(ConnectionDrop $reason): int
    {
        return $this->dropped[$reason->value] ?? 0;
    }

    /** @return array<string, int> ConnectionDrop value => count, only reasons that happened */
    public function droppedByReason(): array
    {
        return $this->dropped;
    }
}
