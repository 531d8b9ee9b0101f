<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

use Random\Randomizer;

/** Random values for the differential tests, drawn from a seeded Randomizer. */
final class RandomValues
{
    /** Random bytes of every value 0–255. */
    public static function bytes(Randomizer $random, int $maxLength): string
    {
        $length = $random->getInt(0, $maxLength);

        return $length === 0 ? '' : $random->getBytes($length);
    }

    /**
     * Random valid UTF-8 of up to $maxChars code points: ASCII (controls and NUL included), two-
     * and three-byte characters and four-byte ones (emoji and other supplementary planes),
     * never a surrogate.
     */
    public static function utf8(Randomizer $random, int $maxChars): string
    {
        $text = '';
        $count = $random->getInt(0, $maxChars);
        for ($i = 0; $i < $count; $i++) {
            $code = match ($random->getInt(0, 4)) {
                0, 1 => $random->getInt(0, 0x7F),
                2 => $random->getInt(0x80, 0x7FF),
                3 => $random->getInt(0x800, 0xFFFD),
                default => $random->getInt(0x10000, 0x10FFFF),
            };
            if ($code >= 0xD800 && $code <= 0xDFFF) {
                $code = 0x1F600; // a surrogate is no character
            }
            $text .= \mb_chr($code, 'UTF-8');
        }

        return $text;
    }

    /** A random double of any bit pattern but infinities and NaNs when $finite. */
    public static function double(Randomizer $random, bool $finite = true): float
    {
        do {
            /** @var array{1: float} $value */
            $value = \unpack('e', $random->getBytes(8));
        } while ($finite && !\is_finite($value[1]));

        return $value[1];
    }

    /** An integer near one of the edges where an encoding changes width, or anywhere in 64 bits. */
    public static function edgyInt(Randomizer $random): int
    {
        $edges = [0, 0x7F, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, \PHP_INT_MAX, -0x20, -0x80, -0x8000, -0x80000000, \PHP_INT_MIN];
        if ($random->getInt(0, 2) === 0) {
            return $random->getInt(\PHP_INT_MIN, \PHP_INT_MAX);
        }
        $edge = $edges[$random->getInt(0, \count($edges) - 1)];
        $step = $random->getInt(-2, 2);

        return match (true) {
            $edge === \PHP_INT_MAX && $step > 0, $edge === \PHP_INT_MIN && $step < 0 => $edge,
            default => $edge + $step,
        };
    }
}
