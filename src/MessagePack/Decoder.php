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
    // Untyped (@var): PHP 8.2's JIT writes a typed property through a checking helper (~60
    // instructions), and these are written for every value.
    /** @var string */
    private $buffer = '';
    /** @var int */
    private $offset = 0;
    /** @var int */
    private $end = 0;
    /** @var int arrays and maps open around the value being read */
    private $depth = 0;
    /** @var bool whether a value is being decoded (decodeAt() called again is an extension's payload) */
    private $busy = false;

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
        if ($this->busy) {
            $offset = 0;
            $value = $this->decodeNested($buffer, $offset, null);
        } else {
            // decodeAt()'s work inline: for a small value the call is a good share of the cost.
            $this->buffer = $buffer;
            $this->offset = 0;
            $this->end = \strlen($buffer);
            $this->busy = true; // depth is 0 here: every way out of a value leaves it so
            try {
                $value = $this->value();
            } catch (\Throwable $e) {
                $this->abandon();
                throw $e;
            }
            $offset = $this->offset;
            $this->busy = false;
            $this->buffer = '';
        }
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
        if ($this->busy) {
            return $this->decodeNested($buffer, $offset, $end);
        }
        $this->end = $end ?? \strlen($buffer);
        if ($offset < 0 || $this->end > \strlen($buffer)) {
            throw new \ValueError('The offset or end lies outside the buffer');
        }
        $this->buffer = $buffer;
        $this->offset = $offset;
        $this->busy = true; // depth is 0 here: every way out of a value leaves it so
        // Catch and rethrow, not finally: a finally block keeps the tracing JIT off this path.
        try {
            $value = $this->value();
        } catch (\Throwable $e) {
            $this->abandon();
            throw $e;
        }
        $offset = $this->offset;
        $this->busy = false;
        $this->buffer = ''; // the caller's buffer is not kept alive by the decoder

        return $value;
    }

    /** A value that failed half-way: the decoder is free again, at depth 0, holding no buffer. */
    private function abandon(): void
    {
        $this->busy = false;
        $this->buffer = '';
        $this->depth = 0;
    }

    /** decodeAt() called while a value is being decoded: an extension decoding its own payload. */
    private function decodeNested(string $buffer, int &$offset, ?int $end): mixed
    {
        $saved = [$this->buffer, $this->offset, $this->end, $this->depth];
        $this->buffer = $buffer;
        $this->offset = $offset;
        $this->end = $end ?? \strlen($buffer);
        if ($this->offset < 0 || $this->end > \strlen($buffer)) {
            [$this->buffer, $this->offset, $this->end, $this->depth] = $saved;
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
        $offset = $this->offset;
        if ($offset >= $this->end) {
            throw $this->truncated(1);
        }
        $byte = \ord($this->buffer[$offset]);
        $this->offset = ++$offset;
        // Most common first: positive fixint, fixstr, fixarray, fixmap, negative fixint.
        if ($byte <= 0x7F) {
            return $byte;
        }
        if ($byte >= 0xA0) {
            if ($byte <= 0xBF) {
                $length = $byte & 0x1F;
                if ($this->end - $offset < $length) {
                    throw $this->truncated($length);
                }
                $this->offset = $offset + $length;

                return $length === 0 ? '' : \substr($this->buffer, $offset, $length);
            }
            if ($byte >= 0xE0) {
                return $byte - 0x100;
            }
        } else {
            // 0x80-0x9F: fixmap, fixarray.
            return $byte >= 0x90 ? $this->array($byte & 0x0F) : $this->map($byte & 0x0F);
        }

        if ($byte === 0xCD || $byte === 0xCC) { // uint 16 and uint 8, inline: ids past 127
            $size = $byte === 0xCD ? 2 : 1;
            if ($this->end - $offset < $size) {
                throw $this->truncated($size);
            }
            $this->offset = $offset + $size;

            return $size === 1 ? \ord($this->buffer[$offset]) : (\ord($this->buffer[$offset]) << 8) | \ord($this->buffer[$offset + 1]);
        }
        if ($byte === 0xD9) { // str 8, inline: the common form of strings of 32-255 bytes
            if ($offset >= $this->end) {
                throw $this->truncated(1);
            }
            $length = \ord($this->buffer[$offset]);
            $this->offset = ++$offset;
            if ($this->end - $offset < $length) {
                throw $this->truncated($length);
            }
            $this->offset = $offset + $length;

            return \substr($this->buffer, $offset, $length);
        }

        // uint 8/16 and str 8 are read above.
        return match ($byte) {
            0xC0 => null,
            0xC2 => false,
            0xC3 => true,
            0xCE => $this->uint(4),
            0xCF => $this->uint64(),
            0xD0 => $this->int(1),
            0xD1 => $this->int(2),
            0xD2 => $this->int(4),
            0xD3 => $this->int(8),
            0xCA => $this->float(4, 'G'),
            0xCB => $this->float(8, 'E'),
            0xC4 => $this->bytes($this->uint(1)), // str 8 (0xD9): above
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
            default => throw new MessagePackException(\sprintf('0x%02x at offset %d is not a MessagePack type', $byte, $offset - 1)),
        };
    }

    // Bytes by ord(), not unpack(): unpack() parses its format and builds an array per call.
    private function uint(int $size): int
    {
        $this->need($size);
        $offset = $this->offset;
        $this->offset = $offset + $size;
        $buffer = $this->buffer;
        if ($size === 1) {
            return \ord($buffer[$offset]);
        }
        if ($size === 2) {
            return (\ord($buffer[$offset]) << 8) | \ord($buffer[$offset + 1]);
        }

        return (\ord($buffer[$offset]) << 24) | (\ord($buffer[$offset + 1]) << 16) | (\ord($buffer[$offset + 2]) << 8) | \ord($buffer[$offset + 3]);
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
        if ($size === 8) {
            $this->need(8);
            $offset = $this->offset;
            $this->offset = $offset + 8;

            return \unpack('J', $this->buffer, $offset)[1]; // @phpstan-ignore offsetAccess.nonOffsetAccessible (bounds checked by need())
        }
        $value = $this->uint($size);
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
