<?php

declare(strict_types=1);

namespace Bobbin\Tarantool\Internal;

use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\MessagePackException;
use Bobbin\Tarantool\Exception\ProtocolException;

/**
 * Splits the server's byte stream into frames (a MessagePack uint length, a header map, a body
 * map) and decodes them. Pure: bytes in, Responses out, no socket.
 *
 * A frame whose length or header cannot be read ends the stream (ProtocolException): there is no
 * telling where the next frame starts, nor whose answer this was. A body that does not decode
 * spoils only its own frame (Response::$malformed).
 *
 * @internal
 */
final class FrameParser
{
    // Untyped (@var): written per frame, and PHP 8.2's JIT writes typed properties through a helper.
    /** @var string */
    private $buffer = '';
    /** @var int */
    private $offset = 0;

    public function __construct(private readonly Decoder $decoder)
    {
    }

    public function append(string $bytes): void
    {
        if ($this->offset > 0) {
            // Drop what was parsed once per read, not once per frame.
            $this->buffer = \substr($this->buffer, $this->offset);
            $this->offset = 0;
        }
        $this->buffer .= $bytes;
    }

    /** Bytes received and not yet parsed into a frame. */
    public function pending(): int
    {
        return \strlen($this->buffer) - $this->offset;
    }

    /**
     * The next whole frame, or null until more bytes arrive.
     *
     * @throws ProtocolException
     */
    public function next(): ?Response
    {
        $available = \strlen($this->buffer) - $this->offset;
        if ($available === 0) {
            return null;
        }
        // 1 to 9 bytes of length; Tarantool sends 5 (0xce + uint32), shorter forms work too.
        $lengthSize = $this->lengthSize();
        if ($available < $lengthSize) {
            return null;
        }
        $length = $this->length($lengthSize);
        if ($available - $lengthSize < $length) {
            return null;
        }
        $start = $this->offset + $lengthSize;
        $end = $start + $length;
        $this->offset = $end;
        $position = $start;
        try {
            $header = $this->decoder->decodeAt($this->buffer, $position, $end);
        } catch (MessagePackException $e) {
            throw new ProtocolException('The server sent a frame whose header is not MessagePack: ' . $e->getMessage(), 0, null, $e);
        }
        if (!\is_array($header) || !\is_int($header[Iproto::REQUEST_TYPE] ?? null) || !\is_int($header[Iproto::SYNC] ?? null)) {
            throw new ProtocolException('The server sent a frame header without a type and a sync id');
        }
        $schema = $header[Iproto::SCHEMA_VERSION] ?? 0;
        $schema = \is_int($schema) ? $schema : 0;
        if ($position === $end) {
            return new Response($header[Iproto::REQUEST_TYPE], $header[Iproto::SYNC], $schema, []);
        }
        try {
            $body = $this->decoder->decodeAt($this->buffer, $position, $end);
            if (!\is_array($body)) {
                return new Response($header[Iproto::REQUEST_TYPE], $header[Iproto::SYNC], $schema, [], 'the body is not a map');
            }
            if ($position !== $end) {
                return new Response($header[Iproto::REQUEST_TYPE], $header[Iproto::SYNC], $schema, [], \sprintf('%d bytes follow the body', $end - $position));
            }
        } catch (MessagePackException $e) {
            return new Response($header[Iproto::REQUEST_TYPE], $header[Iproto::SYNC], $schema, [], $e->getMessage());
        }

        return new Response($header[Iproto::REQUEST_TYPE], $header[Iproto::SYNC], $schema, $body);
    }

    private function lengthSize(): int
    {
        $byte = \ord($this->buffer[$this->offset]);

        // An if chain, not match (true): that compares each arm's value with true. Tarantool sends 0xce.
        if ($byte === 0xCE) {
            return 5;
        }
        if ($byte <= 0x7F) {
            return 1;
        }
        if ($byte === 0xCC) {
            return 2;
        }
        if ($byte === 0xCD) {
            return 3;
        }
        if ($byte === 0xCF) {
            return 9;
        }
        throw new ProtocolException(\sprintf('The server sent 0x%02x where a frame length (a MessagePack uint) was due', $byte));
    }

    private function length(int $size): int
    {
        $at = $this->offset + 1;

        return match ($size) {
            1 => \ord($this->buffer[$this->offset]),
            2 => \ord($this->buffer[$at]),
            3 => (\ord($this->buffer[$at]) << 8) | \ord($this->buffer[$at + 1]),
            5 => (\ord($this->buffer[$at]) << 24) | (\ord($this->buffer[$at + 1]) << 16) | (\ord($this->buffer[$at + 2]) << 8) | \ord($this->buffer[$at + 3]),
            default => $this->length64($at),
        };
    }

    private function length64(int $at): int
    {
        /** @var array{1: int} $value */
        $value = \unpack('J', $this->buffer, $at);
        if ($value[1] < 0) {
            throw new ProtocolException('The server sent a frame length above 2^63');
        }

        return $value[1];
    }
}
