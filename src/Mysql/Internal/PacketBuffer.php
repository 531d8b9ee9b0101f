<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ProtocolException;

/**
 * Turns the bytes read from a socket into packet payloads, and payloads into framed bytes.
 *
 * A packet is a 3-byte little-endian length, a sequence number and the payload; a payload of
 * 0xFFFFFF bytes or more continues in the next packet(s), and one whose length is an exact
 * multiple of 0xFFFFFF ends with an empty packet. Sequence numbers start at 0 with each
 * command and count every packet either way; a wrong one is a protocol error.
 *
 * Consumed bytes are dropped as payloads are taken, so a large result is held once (as rows),
 * not also as the raw bytes it came in.
 *
 * @internal
 */
final class PacketBuffer
{
    /** Compact the buffer once this much of it was consumed. */
    private const COMPACT_AFTER = 65_536;

    private string $buffer = '';
    private int $offset = 0;
    /** The sequence number the next packet, read or written, must carry. */
    private int $sequence = 0;

    public function append(string $bytes): void
    {
        if ($this->offset > self::COMPACT_AFTER || $this->offset === \strlen($this->buffer)) {
            $this->buffer = \substr($this->buffer, $this->offset);
            $this->offset = 0;
        }
        $this->buffer .= $bytes;
    }

    /** A command starts a new exchange: sequence numbers start again at 0. */
    public function resetSequence(): void
    {
        $this->sequence = 0;
    }

    public function hasUnreadBytes(): bool
    {
        return $this->offset < \strlen($this->buffer);
    }

    /**
     * The next complete payload (split packets joined), or null until its last byte is here.
     *
     * @throws ProtocolException on a sequence number out of order
     */
    public function next(): ?string
    {
        $buffer = $this->buffer;
        $offset = $this->offset;
        $available = \strlen($buffer) - $offset;
        if ($available < 4) {
            return null;
        }
        $length = \ord($buffer[$offset]) | (\ord($buffer[$offset + 1]) << 8) | (\ord($buffer[$offset + 2]) << 16);
        if ($length < Protocol::MAX_PACKET_PAYLOAD) {
            // The common case: one packet, one payload.
            if ($available < 4 + $length) {
                return null;
            }
            $this->checkSequence(\ord($buffer[$offset + 3]));
            $this->offset = $offset + 4 + $length;

            return \substr($buffer, $offset + 4, $length);
        }

        return $this->nextSplit();
    }

    /** Frames $payload as the first packet of a new exchange (resetSequence() and frame() in one call). */
    public function frameCommand(string $payload): string
    {
        $length = \strlen($payload);
        if ($length < Protocol::MAX_PACKET_PAYLOAD) {
            $this->sequence = 1;

            return \pack('V', $length) . $payload;
        }
        $this->sequence = 0;

        return $this->frame($payload);
    }

    /**
     * Frames $payload as the next packet(s) of the exchange.
     */
    public function frame(string $payload): string
    {
        $length = \strlen($payload);
        if ($length < Protocol::MAX_PACKET_PAYLOAD) {
            $header = \pack('V', $length | ($this->sequence << 24));
            $this->sequence = ($this->sequence + 1) & 0xff;

            return $header . $payload;
        }
        $framed = '';
        for ($start = 0; ; $start += Protocol::MAX_PACKET_PAYLOAD) {
            $chunk = \substr($payload, $start, Protocol::MAX_PACKET_PAYLOAD);
            $framed .= \pack('V', \strlen($chunk) | ($this->sequence << 24)) . $chunk;
            $this->sequence = ($this->sequence + 1) & 0xff;
            if (\strlen($chunk) < Protocol::MAX_PACKET_PAYLOAD) {
                return $framed;
            }
        }
    }

    private function nextSplit(): ?string
    {
        // Find where the payload ends before taking anything, so nothing is consumed twice.
        $position = $this->offset;
        $total = \strlen($this->buffer);
        $chunks = [];
        while (true) {
            if ($total - $position < 4) {
                return null;
            }
            $length = \ord($this->buffer[$position]) | (\ord($this->buffer[$position + 1]) << 8) | (\ord($this->buffer[$position + 2]) << 16);
            if ($total - $position - 4 < $length) {
                return null;
            }
            $chunks[] = [$position + 4, $length, \ord($this->buffer[$position + 3])];
            $position += 4 + $length;
            if ($length < Protocol::MAX_PACKET_PAYLOAD) {
                break;
            }
        }
        $payload = '';
        foreach ($chunks as [$start, $length, $sequence]) {
            $this->checkSequence($sequence);
            $payload .= \substr($this->buffer, $start, $length);
        }
        $this->offset = $position;

        return $payload;
    }

    private function checkSequence(int $sequence): void
    {
        if ($sequence !== $this->sequence) {
            throw new ProtocolException(\sprintf('Packet out of order: sequence %d where %d was due', $sequence, $this->sequence));
        }
        $this->sequence = ($this->sequence + 1) & 0xff;
    }
}
