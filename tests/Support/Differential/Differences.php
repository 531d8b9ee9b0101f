<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

/** Readable differences between what a reader should have got and what it got. */
final class Differences
{
    /**
     * Each field that differs in value or type, named, or [] when they are identical.
     *
     * @param array<array-key, mixed>|null $expected
     * @param array<array-key, mixed>|null $actual
     * @return list<string>
     */
    public static function ofRows(?array $expected, ?array $actual): array
    {
        if ($expected === null || $actual === null) {
            return $expected === $actual ? [] : [\sprintf('row: expected %s, got %s', self::show($expected), self::show($actual))];
        }
        $differ = [];
        foreach ($expected + $actual as $field => $_) {
            if (!\array_key_exists($field, $actual) || !\array_key_exists($field, $expected) || !self::same($expected[$field], $actual[$field])) {
                $differ[] = \sprintf('%s: expected %s, got %s', $field, self::show($expected[$field] ?? null), self::show($actual[$field] ?? null));
            }
        }

        return $differ;
    }

    /** Identical (floats to the bit: 0.0 is not -0.0), a NaN equal to any NaN, objects of one class equal by value. */
    public static function same(mixed $a, mixed $b): bool
    {
        if (\is_float($a) && \is_float($b)) {
            return \pack('e', $a) === \pack('e', $b) || \is_nan($a) && \is_nan($b);
        }
        if (\is_array($a) && \is_array($b)) {
            if (\array_keys($a) !== \array_keys($b)) {
                return false;
            }
            foreach ($a as $key => $value) {
                if (!self::same($value, $b[$key])) {
                    return false;
                }
            }

            return true;
        }

        if (\is_object($a) && \is_object($b)) {
            return $a::class === $b::class && $a == $b;
        }

        return $a === $b;
    }

    /** A value with its type, binary strings in hex, shortened. */
    public static function show(mixed $value): string
    {
        $text = match (true) {
            \is_string($value) => \mb_check_encoding($value, 'UTF-8') && !\preg_match('/[\x00-\x1f]/', $value)
                ? 'string "' . $value . '"'
                : 'binary string 0x' . \bin2hex($value),
            \is_float($value) => 'float ' . \var_export($value, true),
            \is_array($value) => '[' . \implode(', ', \array_map(
                static fn (mixed $k, mixed $v): string => \var_export($k, true) . ' => ' . self::show($v),
                \array_keys($value),
                $value,
            )) . ']',
            \is_object($value) => $value::class . ' ' . (string) \json_encode($value),
            default => \get_debug_type($value) . ' ' . \var_export($value, true),
        };

        return \strlen($text) > 300 ? \substr($text, 0, 300) . '…' : $text;
    }
}
