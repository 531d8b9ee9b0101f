<?php

declare(strict_types=1);

namespace Bobbin\Nats\Internal;

use Bobbin\Nats\Exception\ConnectionLostException;

/**
 * Commands waiting for the socket. Everything queued in one loop tick goes out in one write;
 * what the kernel does not take stays for the writer. Requests are tracked by token so that a
 * disconnect fails exactly those whose bytes may have reached the server, and keeps those still
 * queued for after the reconnect.
 *
 * @internal
 */
final class OutboundQueue
{
    /** @var list<string> */
    private array $queued = [];
    private int $queuedBytes = 0;
    /** Bytes handed to the socket in part: a batch being written. */
    private string $unwritten = '';
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
        return $this->unwritten === '' && $this->queued === [];
    }

    public function pendingBytes(): int
    {
        return \strlen($this->unwritten) + $this->queuedBytes;
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
     * Writes what the socket takes now; true when nothing is left.
     *
     * @return int bytes written
     * @throws ConnectionLostException
     */
    public function writeTo(Socket $socket): int
    {
        if ($this->queued !== []) {
            $this->unwritten .= \count($this->queued) === 1 ? $this->queued[0] : \implode('', $this->queued);
            $this->queued = [];
            $this->queuedBytes = 0;
            $this->unsent = [];
        }
        if ($this->unwritten === '') {
            return 0;
        }
        $written = $socket->write($this->unwritten);
        $this->unwritten = $written === \strlen($this->unwritten) ? '' : \substr($this->unwritten, $written);

        return $written;
    }

    /**
     * After a disconnect: the batch in part written is gone with the socket; PING, PONG, SUB and
     * UNSUB are dropped (the handshake pings afresh and the subscriptions are sent again from the
     * connection's table); publishes not sent yet stay for the new connection.
     */
    public function afterDisconnect(): void
    {
        $this->unwritten = '';
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
        $this->unsent = [];
    }
}
