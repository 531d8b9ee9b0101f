<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

use Bobbin\Mysql\Exception\ProtocolException;

/**
 * Decodes result rows, text (COM_QUERY) and binary (COM_STMT_EXECUTE), into PHP values by
 * column type, so that both protocols give the same values: integers as int (an unsigned BIGINT
 * or a BIT(64) above PHP_INT_MAX as its decimal string), FLOAT/DOUBLE as float, DECIMAL as
 * string, dates and times as strings in MySQL's own format, BIT as int, BLOBs as binary strings, NULL as null; JSON as its
 * text or, with $decodeJson, decoded to arrays.
 *
 * @internal
 */
final class RowDecoder
{
    /**
     * @param list<ColumnDefinition> $columns
     * @return array<string, mixed>
     */
    public static function text(string $payload, array $columns, bool $decodeJson): array
    {
        $row = [];
        $offset = 0;
        foreach ($columns as $column) {
            if (!isset($payload[$offset])) {
                throw self::truncated();
            }
            $length = \ord($payload[$offset]);
            if ($length < 251) {
                $value = \substr($payload, $offset + 1, $length);
                $offset += 1 + $length;
            } elseif ($length === 251) {
                $row[$column->name] = null;
                $offset++;
                continue;
            } else {
                $value = (string) Wire::readLengthEncodedString($payload, $offset);
            }
            $row[$column->name] = match ($column->kind) {
                ColumnDefinition::KIND_STRING => $value,
                ColumnDefinition::KIND_INT => (int) $value,
                ColumnDefinition::KIND_FLOAT => (float) $value,
                ColumnDefinition::KIND_UNSIGNED_BIGINT => self::unsignedBigint($value),
                ColumnDefinition::KIND_BIT => self::bits($value),
                default => $decodeJson ? self::json($value) : $value,
            };
        }
        if ($offset > \strlen($payload)) {
            throw self::truncated(); // the last value was cut short
        }

        return $row;
    }

    /**
     * @param list<ColumnDefinition> $columns
     * @return array<string, mixed>
     */
    public static function binary(string $payload, array $columns, bool $decodeJson): array
    {
        $row = [];
        $count = \count($columns);
        // A 0x00 header, then the NULL bitmap, whose first two bits are reserved.
        $offset = 1 + (($count + 9) >> 3);
        if (\strlen($payload) < $offset) {
            throw self::truncated();
        }
        foreach ($columns as $i => $column) {
            $bit = $i + 2;
            if ((\ord($payload[1 + ($bit >> 3)]) >> ($bit & 7)) & 1) {
                $row[$column->name] = null;
                continue;
            }
            switch ($column->type) {
                case Protocol::TYPE_LONG:
                case Protocol::TYPE_INT24:
                    if (!isset($payload[$offset + 3])) {
                        throw self::truncated();
                    }
                    $value = \ord($payload[$offset]) | (\ord($payload[$offset + 1]) << 8) | (\ord($payload[$offset + 2]) << 16) | (\ord($payload[$offset + 3]) << 24);
                    if ($value > 0x7fffffff && ($column->flags & Protocol::FLAG_UNSIGNED) === 0) {
                        $value -= 0x100000000;
                    }
                    $offset += 4;
                    break;
                case Protocol::TYPE_LONGLONG:
                    if (!isset($payload[$offset + 7])) {
                        throw self::truncated();
                    }
                    $value = self::unpackOne('P', $payload, $offset);
                    if ($value < 0 && ($column->flags & Protocol::FLAG_UNSIGNED) !== 0) {
                        $value = \sprintf('%u', $value);
                    }
                    $offset += 8;
                    break;
                case Protocol::TYPE_TINY:
                    if (!isset($payload[$offset])) {
                        throw self::truncated();
                    }
                    $value = \ord($payload[$offset++]);
                    if ($value > 127 && ($column->flags & Protocol::FLAG_UNSIGNED) === 0) {
                        $value -= 256;
                    }
                    break;
                case Protocol::TYPE_SHORT:
                case Protocol::TYPE_YEAR:
                    if (!isset($payload[$offset + 1])) {
                        throw self::truncated();
                    }
                    $value = \ord($payload[$offset]) | (\ord($payload[$offset + 1]) << 8);
                    if ($value > 0x7fff && $column->type !== Protocol::TYPE_YEAR && ($column->flags & Protocol::FLAG_UNSIGNED) === 0) {
                        $value -= 0x10000;
                    }
                    $offset += 2;
                    break;
                case Protocol::TYPE_DOUBLE:
                    if (!isset($payload[$offset + 7])) {
                        throw self::truncated();
                    }
                    $value = self::unpackOne('e', $payload, $offset);
                    $offset += 8;
                    break;
                case Protocol::TYPE_FLOAT:
                    if (!isset($payload[$offset + 3])) {
                        throw self::truncated();
                    }
                    $value = self::float32((float) self::unpackOne('g', $payload, $offset), $column->decimals);
                    $offset += 4;
                    break;
                case Protocol::TYPE_DATE:
                case Protocol::TYPE_NEWDATE:
                case Protocol::TYPE_DATETIME:
                case Protocol::TYPE_TIMESTAMP:
                    $value = self::dateTime($payload, $offset, $column);
                    break;
                case Protocol::TYPE_TIME:
                    $value = self::time($payload, $offset, $column->decimals);
                    break;
                default:
                    if (!isset($payload[$offset])) {
                        throw self::truncated();
                    }
                    $length = \ord($payload[$offset]);
                    if ($length < 251) {
                        $value = \substr($payload, $offset + 1, $length);
                        $offset += 1 + $length;
                    } else {
                        $value = (string) Wire::readLengthEncodedString($payload, $offset);
                    }
                    if ($column->kind === ColumnDefinition::KIND_BIT) {
                        $value = self::bits($value);
                    } elseif ($column->kind === ColumnDefinition::KIND_JSON && $decodeJson) {
                        $value = self::json($value);
                    }
            }
            $row[$column->name] = $value;
        }
        if ($offset > \strlen($payload)) {
            throw self::truncated(); // the last value was cut short
        }

        return $row;
    }

    /** A row that ends before its columns do: its values would be cut short or read past the packet. */
    private static function truncated(): ProtocolException
    {
        return new ProtocolException('The server sent a row shorter than its columns');
    }

    private static function unpackOne(string $format, string $data, int $offset): int|float
    {
        $values = \unpack($format, $data, $offset);
        \assert(\is_array($values));

        return $values[1];
    }

    private static function unsignedBigint(string $value): int|string
    {
        // Above PHP_INT_MAX (19 digits, 9223372036854775807) an int would overflow to a float.
        return \strlen($value) < 19 || (\strlen($value) === 19 && $value <= '9223372036854775807') ? (int) $value : $value;
    }

    /** BIT(n) as an unsigned number: an int, or above PHP_INT_MAX its decimal string (as mysqli gives it). */
    private static function bits(string $bytes): int|string
    {
        $value = 0;
        foreach (\str_split($bytes) as $byte) {
            // A 64th bit set wraps to a negative int: the same 64 bits, read as unsigned below.
            $value = ($value << 8) | \ord($byte);
        }

        return $value >= 0 ? $value : \sprintf('%u', $value);
    }

    /** @throws ProtocolException for JSON that does not decode: the rest of the response is still on the wire */
    private static function json(string $value): mixed
    {
        try {
            return \json_decode($value, true, 512, \JSON_THROW_ON_ERROR | \JSON_BIGINT_AS_STRING);
        } catch (\JsonException $e) {
            throw new ProtocolException('The server sent a JSON value that does not decode: ' . $e->getMessage(), 0, '', $e);
        }
    }

    /**
     * A FLOAT arrives as its 4 bytes; the server's text protocol shows it with FLT_DIG (6)
     * significant digits, or with the column's fixed decimals for FLOAT(M,D) (below 31,
     * NOT_FIXED_DEC), and mysqlnd rounds the binary value the same way. So does this: both
     * protocols then give what mysqli gives (16777217.0 stored reads 16777200.0, 1.1 reads 1.1).
     * PHP's %G is zend_dtoa's correctly rounded mode 2, as mysqlnd's php_gcvt() is.
     */
    private static function float32(float $value, int $decimals): float
    {
        return (float) ($decimals < 31 ? \sprintf('%.' . $decimals . 'F', $value) : \sprintf('%.6G', $value));
    }

    private static function dateTime(string $payload, int &$offset, ColumnDefinition $column): string
    {
        if (!isset($payload[$offset])) {
            throw self::truncated();
        }
        $length = \ord($payload[$offset]);
        $fields = \unpack('vyear/Cmonth/Cday/Chour/Cminute/Csecond/Vmicro', \str_pad(\substr($payload, $offset + 1, $length), 11, "\0"));
        $offset += 1 + $length;
        \assert(\is_array($fields));
        $date = \sprintf('%04d-%02d-%02d', $fields['year'], $fields['month'], $fields['day']);
        if ($column->type === Protocol::TYPE_DATE || $column->type === Protocol::TYPE_NEWDATE) {
            return $date;
        }

        return $date . \sprintf(' %02d:%02d:%02d', $fields['hour'], $fields['minute'], $fields['second'])
            . self::fraction($fields['micro'], $column->decimals);
    }

    private static function time(string $payload, int &$offset, int $decimals): string
    {
        if (!isset($payload[$offset])) {
            throw self::truncated();
        }
        $length = \ord($payload[$offset]);
        $fields = \unpack('Cnegative/Vdays/Chour/Cminute/Csecond/Vmicro', \str_pad(\substr($payload, $offset + 1, $length), 12, "\0"));
        $offset += 1 + $length;
        \assert(\is_array($fields));

        return ($fields['negative'] ? '-' : '')
            . \sprintf('%02d:%02d:%02d', $fields['days'] * 24 + $fields['hour'], $fields['minute'], $fields['second'])
            . self::fraction($fields['micro'], $decimals);
    }

    /** The fractional seconds as the column declares them (31: not fixed, shown only when there are any). */
    private static function fraction(int $micro, int $decimals): string
    {
        if ($decimals >= 1 && $decimals <= 6) {
            return '.' . \substr(\sprintf('%06d', $micro), 0, $decimals);
        }

        return $decimals === 31 && $micro > 0 ? \sprintf('.%06d', $micro) : '';
    }
}
