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

    /** @throws MessagePackException for a value MessagePack cannot carry (a resource, an unknown object) */
    public function encode(mixed $value): string
    {
        if (\is_int($value)) {
            return self::int($value);
        }
        if (\is_string($value)) {
            return self::str($value);
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
        $bytes = self::arrayHeader(\count($values));
        foreach ($values as $value) {
            $bytes .= $this->encode($value);
        }

        return $bytes;
    }

    /** @param array<int|string, mixed> $entries */
    public function map(array $entries): string
    {
        $bytes = self::mapHeader(\count($entries));
        foreach ($entries as $key => $value) {
            $bytes .= (\is_int($key) ? self::int($key) : self::str($key)) . $this->encode($value);
        }

        return $bytes;
    }

    public static function int(int $value): string
    {
        if ($value >= 0) {
            return match (true) {
                $value <= 0x7F => \chr($value),
                $value <= 0xFF => "\xcc" . \chr($value),
                $value <= 0xFFFF => "\xcd" . \pack('n', $value),
                $value <= 0xFFFFFFFF => "\xce" . \pack('N', $value),
                default => "\xcf" . \pack('J', $value),
            };
        }

        return match (true) {
            $value >= -32 => \chr($value & 0xFF),
            $value >= -128 => "\xd0" . \chr($value & 0xFF),
            $value >= -32768 => "\xd1" . \pack('n', $value & 0xFFFF),
            $value >= -2147483648 => "\xd2" . \pack('N', $value & 0xFFFFFFFF),
            default => "\xd3" . \pack('J', $value),
        };
    }

    public static function str(string $value): string
    {
        $length = \strlen($value);

        return match (true) {
            $length <= 31 => \chr(0xA0 | $length),
            $length <= 0xFF => "\xd9" . \chr($length),
            $length <= 0xFFFF => "\xda" . \pack('n', $length),
            default => "\xdb" . self::length32($length),
        } . $value;
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
        return match (true) {
            $count <= 15 => \chr(0x90 | $count),
            $count <= 0xFFFF => "\xdc" . \pack('n', $count),
            default => "\xdd" . self::length32($count),
        };
    }

    public static function mapHeader(int $count): string
    {
        return match (true) {
            $count <= 15 => \chr(0x80 | $count),
            $count <= 0xFFFF => "\xde" . \pack('n', $count),
            default => "\xdf" . self::length32($count),
        };
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
