<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Postgres\Bytea;
use PgSql\Result as PgResult;

/**
 * Turns PHP parameters into the text form PostgreSQL expects and result columns (always text
 * from libpq) into PHP values by their type OID.
 *
 * @internal
 */
final class ValueConverter
{
    public const KIND_INT = 1;
    public const KIND_FLOAT = 2;
    public const KIND_BOOL = 3;
    public const KIND_BYTEA = 4;
    public const KIND_JSON = 5;

    private const KIND_BY_OID = [
        20 => self::KIND_INT,    // int8
        21 => self::KIND_INT,    // int2
        23 => self::KIND_INT,    // int4
        26 => self::KIND_INT,    // oid
        700 => self::KIND_FLOAT, // float4
        701 => self::KIND_FLOAT, // float8
        16 => self::KIND_BOOL,
        17 => self::KIND_BYTEA,
        114 => self::KIND_JSON,  // json
        3802 => self::KIND_JSON, // jsonb
    ];

    /**
     * @param array<int, mixed> $params
     * @return list<string|null>
     */
    public static function params(array $params): array
    {
        $converted = [];
        foreach ($params as $value) {
            $converted[] = match (true) {
                \is_string($value), $value === null => $value,
                \is_int($value) => (string) $value,
                \is_bool($value) => $value ? 't' : 'f',
                \is_float($value) => self::floatToText($value),
                $value instanceof Bytea => '\\x' . \bin2hex($value->bytes),
                $value instanceof \DateTimeInterface => $value->format('Y-m-d H:i:s.uP'),
                $value instanceof \BackedEnum => (string) $value->value,
                \is_array($value), $value instanceof \JsonSerializable => \json_encode($value, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES),
                $value instanceof \Stringable => (string) $value,
                default => throw new \InvalidArgumentException(\sprintf('A parameter of type %s cannot be sent to PostgreSQL', \get_debug_type($value))),
            };
        }

        return $converted;
    }

    /**
     * Which columns of $result need converting (text columns need nothing).
     *
     * @return array<string, int> column name => KIND_* constant
     */
    public static function columnKinds(PgResult $result, bool $decodeJson): array
    {
        $kinds = [];
        $count = \pg_num_fields($result);
        for ($i = 0; $i < $count; $i++) {
            $kind = self::KIND_BY_OID[(int) \pg_field_type_oid($result, $i)] ?? null;
            if ($kind !== null && ($kind !== self::KIND_JSON || $decodeJson)) {
                $kinds[\pg_field_name($result, $i)] = $kind;
            }
        }

        return $kinds;
    }

    /**
     * The result's class is the @param's, not declared: every statement passes here, and PHP
     * 8.2's JIT checks a declared class type with a call (docs/ASYNC.md, Rules).
     *
     * @param PgResult $result
     * @param array<string, int> $kinds from columnKinds()
     * @return list<array<string, mixed>>
     */
    public static function rows($result, array $kinds): array
    {
        /** @var list<array<string, string|null>> $rows */
        $rows = \pg_fetch_all($result, \PGSQL_ASSOC);
        if ($kinds === [] || $rows === []) {
            return $rows;
        }
        foreach ($rows as &$row) {
            foreach ($kinds as $name => $kind) {
                $value = $row[$name];
                if ($value === null) {
                    continue;
                }
                $row[$name] = match ($kind) {
                    self::KIND_INT => (int) $value,
                    self::KIND_FLOAT => self::textToFloat($value),
                    self::KIND_BOOL => $value === 't',
                    self::KIND_BYTEA => \pg_unescape_bytea($value),
                    default => \json_decode($value, true, 512, \JSON_THROW_ON_ERROR),
                };
            }
        }
        unset($row);

        return $rows;
    }

    private static function floatToText(float $value): string
    {
        if (\is_nan($value)) {
            return 'NaN';
        }
        if (\is_infinite($value)) {
            return $value > 0 ? 'Infinity' : '-Infinity';
        }

        // Shortest text that reads back as the same double.
        return \var_export($value, true);
    }

    private static function textToFloat(string $value): float
    {
        return match ($value) {
            'NaN' => \NAN,
            'Infinity' => \INF,
            '-Infinity' => -\INF,
            default => (float) $value,
        };
    }
}
