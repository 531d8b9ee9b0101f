<?php

declare(strict_types=1);

namespace Bobbin\Redis\Internal;

/**
 * Commands as RESP arrays of bulk strings, the one form a client sends. Arguments are bytes:
 * strings go as they are (binary safe), integers in decimal, floats in the shortest form that
 * reads back as the same double ("inf" for INF), Stringable objects as their string. Booleans,
 * nulls and arrays are refused: Redis has no such values and any choice would be a guess.
 *
 * @internal
 */
final class RespEncoder
{
    /** @param array<int, mixed> $arguments the command's name first */
    public static function command(array $arguments): string
    {
        $out = '*' . \count($arguments) . "\r\n";
        foreach ($arguments as $argument) {
            if (!\is_string($argument)) {
                $argument = self::toBytes($argument);
            }
            $out .= '$' . \strlen($argument) . "\r\n" . $argument . "\r\n";
        }

        return $out;
    }

    public static function toBytes(mixed $argument): string
    {
        return match (true) {
            \is_string($argument) => $argument,
            \is_int($argument) => (string) $argument,
            \is_float($argument) => self::float($argument),
            $argument instanceof \Stringable => (string) $argument,
            $argument instanceof \BackedEnum => (string) $argument->value,
            default => throw new \ValueError(\sprintf(
                'A Redis argument is a string, an int, a float or a Stringable, not %s',
                \get_debug_type($argument),
            )),
        };
    }

    private static function float(float $value): string
    {
        if (\is_nan($value)) {
            throw new \ValueError('NaN cannot be sent to Redis');
        }
        if (\is_infinite($value)) {
            return $value > 0 ? 'inf' : '-inf';
        }
        $text = \var_export($value, true);

        return \str_ends_with($text, '.0') ? \substr($text, 0, -2) : $text;
    }
}
