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
    /** @var int the last header's request type (or error code), sync id and schema version */
    private $type = 0;
    /** @var int */
    private $sync = 0;
    /** @var int */
    private $schema = 0;

    public function __construct(private readonly Decoder $decoder)
    {
    }

    public function append(string $bytes): void
    {
        if ($this->offset === \strlen($this->buffer)) {
            // All parsed (one answer at a time): the new bytes are the buffer, no copy.
            $this->buffer = $bytes;
            $this->offset = 0;

            return;
        }
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
        $position = $this->header($start, $end);
        if ($position === 0) {
            $position = $this->decodeHeader($start, $end);
        }
        if ($position === $end) {
            return new Response($this->type, $this->sync, $this->schema, []);
        }
        try {
            $body = $this->decoder->decodeAt($this->buffer, $position, $end);
            if (!\is_array($body)) {
                return new Response($this->type, $this->sync, $this->schema, [], 'the body is not a map');
            }
            if ($position !== $end) {
                return new Response($this->type, $this->sync, $this->schema, [], \sprintf('%d bytes follow the body', $end - $position));
            }
        } catch (MessagePackException $e) {
            return new Response($this->type, $this->sync, $this->schema, [], $e->getMessage());
        }

        return new Response($this->type, $this->sync, $this->schema, $body);
    }

    /**
     * The header as Tarantool writes it, read in place into $type, $sync and $schema: a fixmap
     * of small integer keys to unsigned integers (the decoder would build an array of it first,
     * ~2,500 instructions an answer with the JIT). Returns where the body starts, or 0 for any
     * other shape or a header cut short (the decoder's path reads those, and words the error).
     */
    private function header(int $start, int $end): int
    {
        $buffer = $this->buffer;
        $entries = \ord($buffer[$start]) - 0x80;
        if ($entries < 0 || $entries > 15) {
            return 0;
        }
        $type = $sync = -1;
        $schema = 0;
        $at = $start + 1;
        for ($i = 0; $i < $entries; $i++) {
            if ($end - $at < 2) {
                return 0;
            }
            $key = \ord($buffer[$at]);
            $marker = \ord($buffer[$at + 1]);
            $left = $end - $at;
            if ($key > 0x7F) {
                return 0;
            }
            if ($marker <= 0x7F) {
                $value = $marker;
                $at += 2;
            } elseif ($marker === 0xCE && $left >= 6) {
                $value = (\ord($buffer[$at + 2]) << 24) | (\ord($buffer[$at + 3]) << 16) | (\ord($buffer[$at + 4]) << 8) | \ord($buffer[$at + 5]);
                $at += 6;
            } elseif ($marker === 0xCF && $left >= 10 && \ord($buffer[$at + 2]) < 0x80) {
                $value = (\ord($buffer[$at + 2]) << 56) | (\ord($buffer[$at + 3]) << 48) | (\ord($buffer[$at + 4]) << 40) | (\ord($buffer[$at + 5]) << 32)
                    | (\ord($buffer[$at + 6]) << 24) | (\ord($buffer[$at + 7]) << 16) | (\ord($buffer[$at + 8]) << 8) | \ord($buffer[$at + 9]);
                $at += 10;
            } elseif ($marker === 0xCC && $left >= 3) {
                $value = \ord($buffer[$at + 2]);
                $at += 3;
            } elseif ($marker === 0xCD && $left >= 4) {
                $value = (\ord($buffer[$at + 2]) << 8) | \ord($buffer[$at + 3]);
                $at += 4;
            } else {
                return 0; // any other value, or one cut short: the decoder's path words the error
            }
            if ($key === Iproto::REQUEST_TYPE) {
                $type = $value;
            } elseif ($key === Iproto::SYNC) {
                $sync = $value;
            } elseif ($key === Iproto::SCHEMA_VERSION) {
                $schema = $value;
            }
        }
        if ($type < 0 || $sync < 0) {
            return 0; // the decoder's path words the error
        }
        $this->type = $type;
        $this->sync = $sync;
        $this->schema = $schema;

        return $at;
    }

    /** The header of any other shape, through the decoder; returns where the body starts. */
    private function decodeHeader(int $start, int $end): int
    {
        $position = $start;
        try {
            $header = $this->decoder->decodeAt($this->buffer, $position, $end);
        } catch (MessagePackException $e) {
            throw new ProtocolException('The server sent a frame whose header is not MessagePack: ' . $e->getMessage(), 0, null, $e);
        }
        if (!\is_array($header) || !\is_int($header[Iproto::REQUEST_TYPE] ?? null) || !\is_int($header[Iproto::SYNC] ?? null)) {
            throw new ProtocolException('The server sent a frame header without a type and a sync id');
        }
        $this->type = $header[Iproto::REQUEST_TYPE];
        $this->sync = $header[Iproto::SYNC];
        $schema = $header[Iproto::SCHEMA_VERSION] ?? 0;
        $this->schema = \is_int($schema) ? $schema : 0;

        return $position;
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
