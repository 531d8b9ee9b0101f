<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * Builds COM_STMT_EXECUTE: the statement id and each parameter typed from its PHP value
 * (int → BIGINT, float → DOUBLE, bool → TINYINT 0/1, null → NULL, strings as they are, byte
 * for byte; DateTimeInterface → 'Y-m-d H:i:s.u'; backed enums by value; arrays and
 * JsonSerializable as JSON; Stringable as its string).
 *
 * @internal
 */
final class ParameterEncoder
{
    /** @param array<int, mixed> $params */
    public static function execute(int $statementId, int $expected, array $params): string
    {
        $count = \count($params);
        if ($count !== $expected) {
            throw new \ValueError(\sprintf('The statement takes %d parameter(s), %d given', $expected, $count));
        }
        $payload = \pack('CVCV', Protocol::COM_STMT_EXECUTE, $statementId, 0, 1);
        if ($count === 0) {
            return $payload;
        }
        // The NULL bitmap as one int while it fits (up to 56 parameters: no array per statement).
        $nulls = $count <= 56 ? 0 : \array_fill(0, ($count + 7) >> 3, 0);
        $types = '';
        $values = '';
        $i = 0;
        foreach ($params as $param) {
            if ($param instanceof \BackedEnum) {
                $param = $param->value;
            }
            switch (true) {
                case $param === null:
                    if (\is_int($nulls)) {
                        $nulls |= 1 << $i;
                    } else {
                        $nulls[$i >> 3] |= 1 << ($i & 7);
                    }
                    $types .= "\x06\x00";
                    break;
                case \is_int($param):
                    $types .= "\x08\x00";
                    $values .= \pack('P', $param);
                    break;
                case \is_string($param):
                    $types .= "\xfd\x00";
                    // Wire::lengthEncodedString() written out for the common short string.
                    $values .= \strlen($param) < 251 ? \chr(\strlen($param)) . $param : Wire::lengthEncodedString($param);
                    break;
                case \is_float($param):
                    $types .= "\x05\x00";
                    $values .= \pack('e', $param);
                    break;
                case \is_bool($param):
                    $types .= "\x01\x00";
                    $values .= $param ? "\x01" : "\x00";
                    break;
                default:
                    $types .= "\xfd\x00";
                    $values .= Wire::lengthEncodedString(self::text($param, $i));
            }
            $i++;
        }
        if (\is_int($nulls)) {
            $bitmap = \chr($nulls & 0xff);
            for ($shift = 8; $shift < $count; $shift += 8) {
                $bitmap .= \chr(($nulls >> $shift) & 0xff);
            }
        } else {
            $bitmap = '';
            foreach ($nulls as $byte) {
                $bitmap .= \chr($byte);
            }
        }

        return $payload . $bitmap . "\x01" . $types . $values;
    }

    private static function text(mixed $param, int $index): string
    {
        return match (true) {
            $param instanceof \DateTimeInterface => $param->format('Y-m-d H:i:s.u'),
            \is_array($param), $param instanceof \JsonSerializable => \json_encode($param, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES),
            $param instanceof \Stringable => (string) $param,
            default => throw new \ValueError(\sprintf('Parameter %d: a %s cannot be sent to MySQL', $index + 1, \get_debug_type($param))),
        };
    }
}
