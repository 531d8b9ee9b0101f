<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * MessagePack to PHP values, reading one buffer by offset: no substring is cut except the
 * str/bin/ext payloads that become values. nil → null, bool, int (a uint 64 above PHP_INT_MAX
 * → its decimal digits as a string, never a wrapped int), float 32/64 → float, str and bin →
 * string, array → list, map → array (keys must be int or str), ext → what the registered
 * Extension returns, or an Ext.
 *
 * Every read is bounds-checked: a truncated or malformed buffer is a MessagePackException,
 * never a PHP warning or a wrong value. Arrays and maps nest at most MAX_DEPTH deep (extension
 * payloads decoded with this decoder included): each level costs PHP a call frame, and a
 * megabyte of 0x91 would otherwise ask for a million of them.
 */
final class Decoder
{
    /** How deep arrays and maps may nest; deeper is a MessagePackException. */
    public const MAX_DEPTH = 512;

    private readonly Extensions $extensions;
    private string $buffer = '';
    private int $offset = 0;
    private int $end = 0;
    /** Arrays and maps open around the value being read. */
    private int $depth = 0;

    public function __construct(?Extensions $extensions = null)
    {
        $this->extensions = $extensions ?? Extensions::tarantool();
    }

    /**
     * The one value $buffer holds, all of it.
     *
     * @throws MessagePackException
     */
    public function decode(string $buffer): mixed
    {
        $offset = 0;
        $value = $this->decodeAt($buffer, $offset);
        if ($offset !== \strlen($buffer)) {
            throw new MessagePackException(\sprintf('%d bytes follow the MessagePack value', \strlen($buffer) - $offset));
        }

        return $value;
    }

    /**
     * The value starting at $offset, which is moved past it. $end bounds the read (a frame
     * inside a larger buffer); the buffer's length by default.
     *
     * @throws MessagePackException
     */
    public function decodeAt(string $buffer, int &$offset, ?int $end = null): mixed
    {
        // Saved and restored: an extension's decode() may decode its own payload with us.
        $saved = [$this->buffer, $this->offset, $this->end, $this->depth];
        $this->buffer = $buffer;
        $this->offset = $offset;
        $this->end = $end ?? \strlen($buffer);
        if ($this->offset < 0 || $this->end > \strlen($buffer)) {
            throw new \ValueError('The offset or end lies outside the buffer');
        }
        try {
            $value = $this->value();
            $offset = $this->offset;

            return $value;
        } finally {
            // The depth too: an exception thrown deep inside leaves it where it was.
            [$this->buffer, $this->offset, $this->end, $this->depth] = $saved;
        }
    }

    private function value(): mixed
    {
        if ($this->offset >= $this->end) {
            throw $this->truncated(1);
        }
        $byte = \ord($this->buffer[$this->offset++]);
        if ($byte <= 0x7F) {
            return $byte;
        }
        if ($byte >= 0xE0) {
            return $byte - 0x100;
        }
        if ($byte >= 0xA0 && $byte <= 0xBF) {
            return $this->bytes($byte & 0x1F);
        }
        if ($byte >= 0x90 && $byte <= 0x9F) {
            return $this->array($byte & 0x0F);
        }
        if ($byte <= 0x8F) {
            return $this->map($byte & 0x0F);
        }

        return match ($byte) {
            0xC0 => null,
            0xC2 => false,
            0xC3 => true,
            0xCC => $this->uint(1),
            0xCD => $this->uint(2),
            0xCE => $this->uint(4),
            0xCF => $this->uint64(),
            0xD0 => $this->int(1),
            0xD1 => $this->int(2),
            0xD2 => $this->int(4),
            0xD3 => $this->int(8),
            0xCA => $this->float(4, 'G'),
            0xCB => $this->float(8, 'E'),
            0xD9, 0xC4 => $this->bytes($this->uint(1)),
            0xDA, 0xC5 => $this->bytes($this->uint(2)),
            0xDB, 0xC6 => $this->bytes($this->uint(4)),
            0xDC => $this->array($this->uint(2)),
            0xDD => $this->array($this->uint(4)),
            0xDE => $this->map($this->uint(2)),
            0xDF => $this->map($this->uint(4)),
            0xD4 => $this->ext(1),
            0xD5 => $this->ext(2),
            0xD6 => $this->ext(4),
            0xD7 => $this->ext(8),
            0xD8 => $this->ext(16),
            0xC7 => $this->ext($this->uint(1)),
            0xC8 => $this->ext($this->uint(2)),
            0xC9 => $this->ext($this->uint(4)),
            default => throw new MessagePackException(\sprintf('0x%02x at offset %d is not a MessagePack type', $byte, $this->offset - 1)),
        };
    }

    private function uint(int $size): int
    {
        $this->need($size);
        $offset = $this->offset;
        $this->offset += $size;

        return match ($size) {
            1 => \ord($this->buffer[$offset]),
            2 => \unpack('n', $this->buffer, $offset)[1], // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
            default => \unpack('N', $this->buffer, $offset)[1], // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        };
    }

    private function uint64(): int|string
    {
        $this->need(8);
        $value = \unpack('J', $this->buffer, $this->offset)[1]; // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        $this->offset += 8;

        // Above PHP_INT_MAX unpack() wraps to a negative int: the digits of the unsigned value instead.
        return $value >= 0 ? $value : \sprintf('%u', $value);
    }

    private function int(int $size): int
    {
        $this->need($size);
        $offset = $this->offset;
        $this->offset += $size;
        if ($size === 8) {
            return \unpack('J', $this->buffer, $offset)[1]; // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        }
        $value = match ($size) {
            1 => \ord($this->buffer[$offset]),
            2 => \unpack('n', $this->buffer, $offset)[1], // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
            default => \unpack('N', $this->buffer, $offset)[1], // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        };
        $sign = 1 << ($size * 8 - 1);

        return $value >= $sign ? $value - ($sign << 1) : $value;
    }

    private function float(int $size, string $format): float
    {
        $this->need($size);
        $value = \unpack($format, $this->buffer, $this->offset)[1]; // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        $this->offset += $size;

        return $value;
    }

    private function bytes(int $length): string
    {
        if ($length === 0) {
            return '';
        }
        $this->need($length);
        $value = \substr($this->buffer, $this->offset, $length);
        $this->offset += $length;

        return $value;
    }

    /** @return list<mixed> */
    private function array(int $count): array
    {
        if (++$this->depth > self::MAX_DEPTH) {
            throw $this->tooDeep();
        }
        $values = [];
        for ($i = 0; $i < $count; $i++) {
            $values[] = $this->value();
        }
        $this->depth--;

        return $values;
    }

    /** @return array<int|string, mixed> */
    private function map(int $count): array
    {
        if (++$this->depth > self::MAX_DEPTH) {
            throw $this->tooDeep();
        }
        $entries = [];
        for ($i = 0; $i < $count; $i++) {
            $at = $this->offset;
            $key = $this->value();
            if (!\is_int($key) && !\is_string($key)) {
                throw new MessagePackException(\sprintf('A map key at offset %d is a %s; only integer and string keys can be PHP array keys', $at, \get_debug_type($key)));
            }
            $entries[$key] = $this->value();
        }
        $this->depth--;

        return $entries;
    }

    private function ext(int $length): mixed
    {
        $this->need(1 + $length);
        $type = \ord($this->buffer[$this->offset]);
        $type = $type > 127 ? $type - 256 : $type;
        $data = \substr($this->buffer, $this->offset + 1, $length);
        $this->offset += 1 + $length;
        $extension = $this->extensions->forType($type);

        return $extension === null ? new Ext($type, $data) : $extension->decode($data, $this);
    }

    private function need(int $bytes): void
    {
        if ($this->end - $this->offset < $bytes) {
            throw $this->truncated($bytes);
        }
    }

    private function tooDeep(): MessagePackException
    {
        return new MessagePackException(\sprintf('MessagePack that nests deeper than %d levels (at offset %d)', self::MAX_DEPTH, $this->offset - 1));
    }

    private function truncated(int $bytes): MessagePackException
    {
        return new MessagePackException(\sprintf(
            'Truncated MessagePack: %d bytes needed at offset %d, %d left',
            $bytes,
            $this->offset,
            \max(0, $this->end - $this->offset),
        ));
    }
}
