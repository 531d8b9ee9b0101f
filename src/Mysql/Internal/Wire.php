<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ProtocolException;

/**
 * The protocol's basic encodings over strings: length-encoded integers and strings,
 * NUL-terminated strings. Readers advance $offset and throw ProtocolException past the end.
 *
 * @internal
 */
final class Wire
{
    public static function lengthEncodedInt(int $value): string
    {
        return match (true) {
            $value < 251 => \chr($value),
            $value < 0x10000 => "\xfc" . \pack('v', $value),
            $value < 0x1000000 => "\xfd" . \substr(\pack('V', $value), 0, 3),
            default => "\xfe" . \pack('P', $value),
        };
    }

    public static function lengthEncodedString(string $value): string
    {
        return self::lengthEncodedInt(\strlen($value)) . $value;
    }

    /** A length-encoded integer; null for the 0xFB marker (NULL in a text row). */
    public static function readLengthEncodedInt(string $data, int &$offset): ?int
    {
        if (!isset($data[$offset])) {
            throw new ProtocolException('A packet ended inside a length-encoded integer');
        }
        $first = \ord($data[$offset]);
        if ($first < 251) {
            $offset++;

            return $first;
        }
        $size = match ($first) {
            251 => 0,
            252 => 2,
            253 => 3,
            254 => 8,
            default => throw new ProtocolException('Invalid length-encoded integer prefix 0xff'),
        };
        if ($size === 0) {
            $offset++;

            return null;
        }
        if (\strlen($data) < $offset + 1 + $size) {
            throw new ProtocolException('A packet ended inside a length-encoded integer');
        }
        $bytes = \substr($data, $offset + 1, $size);
        $offset += 1 + $size;
        /** @var array{1: int} $value */
        $value = \unpack($size === 8 ? 'P' : 'V', \str_pad($bytes, $size === 8 ? 8 : 4, "\0"));

        return $value[1];
    }

    public static function readLengthEncodedString(string $data, int &$offset): ?string
    {
        $length = self::readLengthEncodedInt($data, $offset);
        if ($length === null) {
            return null;
        }
        if ($length < 0) {
            // 2^63 or more, read as 64 signed bits: no packet is that long, and a negative
            // length would move the offset backwards.
            throw new ProtocolException('A length-encoded string claims 2^63 bytes or more');
        }
        if (\strlen($data) < $offset + $length) {
            throw new ProtocolException('A packet ended inside a length-encoded string');
        }
        $value = \substr($data, $offset, $length);
        $offset += $length;

        return $value;
    }

    public static function readNulString(string $data, int &$offset): string
    {
        $end = \strpos($data, "\0", $offset);
        if ($end === false) {
            throw new ProtocolException('A packet ended inside a NUL-terminated string');
        }
        $value = \substr($data, $offset, $end - $offset);
        $offset = $end + 1;

        return $value;
    }

    public static function readFixed(string $data, int &$offset, int $length): string
    {
        if (\strlen($data) < $offset + $length) {
            throw new ProtocolException(\sprintf('A packet ended %d bytes early', $offset + $length - \strlen($data)));
        }
        $value = \substr($data, $offset, $length);
        $offset += $length;

        return $value;
    }

    public static function readUint8(string $data, int &$offset): int
    {
        return \ord(self::readFixed($data, $offset, 1));
    }

    public static function readUint16(string $data, int &$offset): int
    {
        /** @var array{1: int} $value */
        $value = \unpack('v', self::readFixed($data, $offset, 2));

        return $value[1];
    }

    public static function readUint32(string $data, int &$offset): int
    {
        /** @var array{1: int} $value */
        $value = \unpack('V', self::readFixed($data, $offset, 4));

        return $value[1];
    }
}
