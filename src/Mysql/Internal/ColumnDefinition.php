<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * One column of a result set, reduced to what value conversion needs.
 *
 * @internal
 */
final class ColumnDefinition
{
    /** A text value converted to int. */
    public const KIND_INT = 1;
    /** An unsigned BIGINT: int up to PHP_INT_MAX, a string above. */
    public const KIND_UNSIGNED_BIGINT = 2;
    public const KIND_FLOAT = 3;
    /** A BIT(n) column: its big-endian bytes as an int. */
    public const KIND_BIT = 4;
    public const KIND_JSON = 5;
    /** Everything kept as the server's text: strings, BLOBs, DECIMAL, dates and times. */
    public const KIND_STRING = 0;

    public function __construct(
        public readonly string $name,
        public readonly int $type,
        public readonly int $flags,
        public readonly int $charset,
        public readonly int $decimals,
        public readonly int $kind,
    ) {
    }

    /** @param bool $extendedMetadata whether MariaDB's extended type info follows the column name */
    public static function parse(string $payload, bool $extendedMetadata): self
    {
        $offset = 0;
        for ($skip = 0; $skip < 4; $skip++) { // catalog, schema, table alias, table
            Wire::readLengthEncodedString($payload, $offset);
        }
        $name = (string) Wire::readLengthEncodedString($payload, $offset);
        Wire::readLengthEncodedString($payload, $offset); // original column name
        $extendedType = '';
        if ($extendedMetadata) {
            $info = (string) Wire::readLengthEncodedString($payload, $offset);
            $at = 0;
            while ($at < \strlen($info)) {
                $key = Wire::readUint8($info, $at);
                $value = (string) Wire::readLengthEncodedString($info, $at);
                // 0: a data type name (inet6, uuid…), 1: a format (MariaDB's JSON is LONGTEXT, format "json").
                if ($key <= 1 && $extendedType === '') {
                    $extendedType = $value;
                }
            }
        }
        Wire::readLengthEncodedInt($payload, $offset); // length of the fixed fields (0x0c)
        $charset = Wire::readUint16($payload, $offset);
        Wire::readUint32($payload, $offset); // column length
        $type = Wire::readUint8($payload, $offset);
        $flags = Wire::readUint16($payload, $offset);
        $decimals = Wire::readUint8($payload, $offset);

        return new self($name, $type, $flags, $charset, $decimals, self::kindOf($type, $flags, $extendedType));
    }

    private static function kindOf(int $type, int $flags, string $extendedType): int
    {
        return match ($type) {
            Protocol::TYPE_TINY, Protocol::TYPE_SHORT, Protocol::TYPE_LONG, Protocol::TYPE_INT24, Protocol::TYPE_YEAR => self::KIND_INT,
            Protocol::TYPE_LONGLONG => ($flags & Protocol::FLAG_UNSIGNED) !== 0 ? self::KIND_UNSIGNED_BIGINT : self::KIND_INT,
            Protocol::TYPE_FLOAT, Protocol::TYPE_DOUBLE => self::KIND_FLOAT,
            Protocol::TYPE_BIT => self::KIND_BIT,
            Protocol::TYPE_JSON => self::KIND_JSON,
            default => $extendedType === 'json' ? self::KIND_JSON : self::KIND_STRING,
        };
    }
}
