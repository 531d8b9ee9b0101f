<?php

declare(strict_types=1);

namespace Bobbin\MessagePack;

/**
 * PHP values to MessagePack, each in its shortest form: null → nil, bool, int (the smallest
 * width that holds it), float → float 64 (Float32 for float 32), string → str (Binary for bin),
 * a list → array, any other array → map (Map forces a map), a backed enum → its value, UInt64
 * → uint 64, Ext and registered Extensions → ext.
 */
final class Encoder
{
    private readonly Extensions $extensions;

    public function __construct(?Extensions $extensions = null)
    {
        $this->extensions = $extensions ?? Extensions::tarantool();
    }

    /**
     * The short forms (ints up to 16 bits and small negative ones, strings up to 255 bytes,
     * fixarray/fixmap headers) are written inline in encode(), list() and map(): under PHP
     * 8.2's JIT a static call costs ~50-100 instructions more than an instance call, as much as
     * the encoding itself (bench/tarantool/reference.php).
     *
     * @throws MessagePackException for a value MessagePack cannot carry (a resource, an unknown object)
     */
    public function encode(mixed $value): string
    {
        if (\is_int($value)) {
            // int()'s forms, inline.
            if ($value >= 0) {
                if ($value <= 0x7F) {
                    return \chr($value);
                }
                if ($value <= 0xFF) {
                    return "\xcc" . \chr($value);
                }

                if ($value <= 0xFFFF) {
                    return "\xcd" . \chr($value >> 8) . \chr($value & 0xFF);
                }

                return $value <= 0xFFFFFFFF ? \pack('CN', 0xCE, $value) : \pack('CJ', 0xCF, $value);
            }
            if ($value >= -32) {
                return \chr($value & 0xFF);
            }

            return $value >= -2147483648 ? Encoder::int($value) : \pack('CJ', 0xD3, $value);
        }
        if (\is_string($value)) {
            // str()'s forms, inline.
            $length = \strlen($value);
            if ($length <= 31) {
                return \chr(0xA0 | $length) . $value;
            }

            if ($length <= 0xFF) {
                return "\xd9" . \chr($length) . $value;
            }

            return $length <= 0xFFFF ? "\xda" . \chr($length >> 8) . \chr($length & 0xFF) . $value : Encoder::str($value);
        }
        if (\is_array($value)) {
            return \array_is_list($value) ? $this->list($value) : $this->map($value);
        }
        if ($value === null) {
            return "\xc0";
        }
        if (\is_bool($value)) {
            return $value ? "\xc3" : "\xc2";
        }
        if (\is_float($value)) {
            return "\xcb" . \pack('E', $value);
        }
        if (\is_object($value)) {
            return $this->object($value);
        }
        throw new MessagePackException(\sprintf('A %s cannot be encoded as MessagePack', \get_debug_type($value)));
    }

    /** @param list<mixed> $values */
    public function list(array $values): string
    {
        $count = \count($values);
        $bytes = $count <= 15 ? \chr(0x90 | $count) : Encoder::arrayHeader($count);
        foreach ($values as $value) {
            $bytes .= $this->encode($value);
        }

        return $bytes;
    }

    /** @param array<int|string, mixed> $entries */
    public function map(array $entries): string
    {
        $count = \count($entries);
        $bytes = $count <= 15 ? \chr(0x80 | $count) : Encoder::mapHeader($count);
        foreach ($entries as $key => $value) {
            if (\is_int($key)) {
                $bytes .= ($key >= 0 && $key <= 0x7F ? \chr($key) : Encoder::int($key)) . $this->encode($value);
            } else {
                $length = \strlen($key);
                $bytes .= ($length <= 31 ? \chr(0xA0 | $length) . $key : Encoder::str($key)) . $this->encode($value);
            }
        }

        return $bytes;
    }

    // if chains, not match (true): match evaluates each arm and then compares it with true.
    public static function int(int $value): string
    {
        if ($value >= 0) {
            if ($value <= 0x7F) {
                return \chr($value);
            }
            if ($value <= 0xFF) {
                return "\xcc" . \chr($value);
            }
            if ($value <= 0xFFFF) {
                return "\xcd" . \chr($value >> 8) . \chr($value & 0xFF);
            }

            return $value <= 0xFFFFFFFF ? \pack('CN', 0xCE, $value) : \pack('CJ', 0xCF, $value);
        }
        if ($value >= -32) {
            return \chr($value & 0xFF);
        }
        if ($value >= -128) {
            return "\xd0" . \chr($value & 0xFF);
        }
        if ($value >= -32768) {
            return "\xd1" . \chr(($value >> 8) & 0xFF) . \chr($value & 0xFF);
        }

        return $value >= -2147483648 ? \pack('CN', 0xD2, $value & 0xFFFFFFFF) : \pack('CJ', 0xD3, $value);
    }

    public static function str(string $value): string
    {
        $length = \strlen($value);
        if ($length <= 31) {
            return \chr(0xA0 | $length) . $value;
        }
        if ($length <= 0xFF) {
            return "\xd9" . \chr($length) . $value;
        }

        return ($length <= 0xFFFF ? "\xda" . \chr($length >> 8) . \chr($length & 0xFF) : "\xdb" . self::length32($length)) . $value;
    }

    public static function bin(string $value): string
    {
        $length = \strlen($value);

        return match (true) {
            $length <= 0xFF => "\xc4" . \chr($length),
            $length <= 0xFFFF => "\xc5" . \pack('n', $length),
            default => "\xc6" . self::length32($length),
        } . $value;
    }

    public static function arrayHeader(int $count): string
    {
        if ($count <= 15) {
            return \chr(0x90 | $count);
        }

        return $count <= 0xFFFF ? "\xdc" . \chr($count >> 8) . \chr($count & 0xFF) : "\xdd" . self::length32($count);
    }

    public static function mapHeader(int $count): string
    {
        if ($count <= 15) {
            return \chr(0x80 | $count);
        }

        return $count <= 0xFFFF ? "\xde" . \chr($count >> 8) . \chr($count & 0xFF) : "\xdf" . self::length32($count);
    }

    public static function ext(int $type, string $data): string
    {
        $length = \strlen($data);
        $code = \chr($type & 0xFF);

        return match ($length) {
            1 => "\xd4" . $code,
            2 => "\xd5" . $code,
            4 => "\xd6" . $code,
            8 => "\xd7" . $code,
            16 => "\xd8" . $code,
            default => match (true) {
                $length <= 0xFF => "\xc7" . \chr($length) . $code,
                $length <= 0xFFFF => "\xc8" . \pack('n', $length) . $code,
                default => "\xc9" . self::length32($length) . $code,
            },
        } . $data;
    }

    private function object(object $value): string
    {
        if ($value instanceof Binary) {
            return self::bin($value->bytes);
        }
        if ($value instanceof Map) {
            return $this->map($value->entries);
        }
        if ($value instanceof Float32) {
            return "\xca" . \pack('G', $value->value);
        }
        if ($value instanceof UInt64) {
            return "\xcf" . $value->bytes();
        }
        if ($value instanceof Ext) {
            return self::ext($value->type, $value->data);
        }
        if ($value instanceof \BackedEnum) {
            return $this->encode($value->value);
        }
        $extension = $this->extensions->forObject($value);
        if ($extension === null) {
            throw new MessagePackException(\sprintf('No MessagePack extension is registered for %s', $value::class));
        }

        return self::ext($extension->type(), $extension->encode($value, $this));
    }

    private static function length32(int $length): string
    {
        if ($length > 0xFFFFFFFF) {
            throw new MessagePackException('MessagePack cannot carry more than 2^32 - 1 bytes or elements in one value');
        }

        return \pack('N', $length);
    }
}
