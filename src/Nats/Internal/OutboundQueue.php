<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Nats\Exception\ConnectionLostException;

/**
 * Commands waiting for the socket, in order. They are joined once when handed to the socket (a
 * string grown by appends would be copied again on many of its reallocations) and written in
 * slices of at most MAX_WRITE, so each byte is copied a bounded number of times on its way out
 * however much is queued and however little the kernel takes per write. Requests are tracked by token so that a disconnect fails
 * exactly those whose bytes may have reached the server, and keeps those still queued for after
 * the reconnect.
 *
 * @internal
 */
final class OutboundQueue
{
    /** At most this much per write: a write the kernel takes in part costs a copy of at most this much. */
    private const MAX_WRITE = 1_048_576;

    /** @var list<string> commands not handed to the socket yet */
    private array $queued = [];
    /** Bytes in $queued. */
    public int $queuedBytes = 0;
    /** Bytes handed to the socket in part: a batch being written, from $offset on. */
    private string $unwritten = '';
    private int $offset = 0;
    /** @var array<int, string> PUBs of requests still in $queued, by token */
    private array $unsent = [];

    public function add(string $bytes, ?int $token = null): void
    {
        $this->queued[] = $bytes;
        $this->queuedBytes += \strlen($bytes);
        if ($token !== null) {
            $this->unsent[$token] = $bytes;
        }
    }

    /** Puts commands before everything queued (the subscriptions again, after a reconnect). */
    public function addFirst(string $bytes): void
    {
        \array_unshift($this->queued, $bytes);
        $this->queuedBytes += \strlen($bytes);
    }

    public function isEmpty(): bool
    {
        return $this->queuedBytes === 0 && $this->unwritten === '';
    }

    public function pendingBytes(): int
    {
        return $this->queuedBytes + \strlen($this->unwritten) - $this->offset;
    }

    public function isUnsent(int $token): bool
    {
        return isset($this->unsent[$token]);
    }

    /**
     * The request of $token waits no more: a PUB of it still queued is dropped, so that a request
     * cancelled before it left (in the tick it was made, or while reconnecting) is never sent.
     */
    public function forget(int $token): void
    {
        $bytes = $this->unsent[$token] ?? null;
        if ($bytes === null) {
            return;
        }
        unset($this->unsent[$token]);
        $at = \array_search($bytes, $this->queued, true);
        if ($at !== false) {
            \array_splice($this->queued, $at, 1);
            $this->queuedBytes -= \strlen($bytes);
        }
    }

    /**
     * Writes what the socket takes now.
     *
     * @return int bytes written
     * @throws ConnectionLostException
     */
    public function writeTo(Socket $socket): int
    {
        $total = 0;
        while (true) {
            $left = \strlen($this->unwritten) - $this->offset;
            if ($left === 0) {
                if ($this->queuedBytes === 0) {
                    $this->unwritten = '';
                    $this->offset = 0;

                    return $total;
                }
                $this->takeQueued();
                $left = \strlen($this->unwritten);
            }
            $chunk = $this->offset === 0 && $left <= self::MAX_WRITE ? $this->unwritten : \substr($this->unwritten, $this->offset, self::MAX_WRITE);
            $written = $socket->write($chunk);
            $total += $written;
            $this->offset += $written;
            if ($written < \strlen($chunk)) {
                return $total;
            }
        }
    }

    /**
     * After a disconnect: the batch in part written is gone with the socket; PING, PONG, SUB and
     * UNSUB are dropped (the handshake pings afresh and the subscriptions are sent again from the
     * connection's table); publishes not sent yet stay for the new connection.
     */
    public function afterDisconnect(): void
    {
        $this->unwritten = '';
        $this->offset = 0;
        $kept = [];
        $bytes = 0;
        foreach ($this->queued as $command) {
            if ($command === Commands::PING || $command === Commands::PONG || \str_starts_with($command, 'SUB ') || \str_starts_with($command, 'UNSUB ')) {
                continue;
            }
            $kept[] = $command;
            $bytes += \strlen($command);
        }
        $this->queued = $kept;
        $this->queuedBytes = $bytes;
    }

    public function clear(): void
    {
        $this->queued = [];
        $this->queuedBytes = 0;
        $this->unwritten = '';
        $this->offset = 0;
        $this->unsent = [];
    }

    /** What is queued becomes the batch being written (handed to the socket: its requests may reach the server). */
    private function takeQueued(): void
    {
        $this->unwritten = \count($this->queued) === 1 ? $this->queued[0] : \implode('', $this->queued);
        $this->offset = 0;
        $this->queued = [];
        $this->queuedBytes = 0;
        $this->unsent = [];
    }
}
