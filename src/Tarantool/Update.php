<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

/**
 * The operations of update() and upsert(), as the protocol carries them: [operator, field, …].
 * A field is its number counted from 0 (the protocol's base, not Lua's 1) or its name (or a
 * JSON path, Tarantool 2.3+); a negative number counts from the end.
 */
final class Update
{
    /** @return list<mixed> field + $value (integers, floats, decimals) */
    public static function add(int|string $field, int|float|object $value): array
    {
        return ['+', $field, $value];
    }

    /** @return list<mixed> field - $value */
    public static function subtract(int|string $field, int|float|object $value): array
    {
        return ['-', $field, $value];
    }

    /** @return list<mixed> field & $value (unsigned integers) */
    public static function bitAnd(int|string $field, int $value): array
    {
        return ['&', $field, $value];
    }

    /** @return list<mixed> field | $value */
    public static function bitOr(int|string $field, int $value): array
    {
        return ['|', $field, $value];
    }

    /** @return list<mixed> field ^ $value */
    public static function bitXor(int|string $field, int $value): array
    {
        return ['^', $field, $value];
    }

    /** @return list<mixed> field = $value */
    public static function assign(int|string $field, mixed $value): array
    {
        return ['=', $field, $value];
    }

    /** @return list<mixed> $value inserted before field (the fields after it move up) */
    public static function insert(int|string $field, mixed $value): array
    {
        return ['!', $field, $value];
    }

    /** @return list<mixed> $count fields deleted from field on */
    public static function delete(int|string $field, int $count = 1): array
    {
        return ['#', $field, $count];
    }

    /**
     * The string in field with $length bytes from $position replaced by $replacement. Over the
     * protocol the position counts from 0, like the field numbers (Lua's :update() counts from 1).
     *
     * @return list<mixed>
     */
    public static function splice(int|string $field, int $position, int $length, string $replacement): array
    {
        return [':', $field, $position, $length, $replacement];
    }
}
