<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * Tells whether SQL text holds more than one statement: a semicolon outside quotes and
 * comments with anything but white space and comments after it. Asked only after the server
 * rejected the text, to name the mistake.
 *
 * @internal
 */
final class StatementScanner
{
    public static function hasSeveralStatements(string $sql): bool
    {
        $length = \strlen($sql);
        $ended = false;
        for ($i = 0; $i < $length; $i++) {
            $char = $sql[$i];
            if ($char === "'" || $char === '"' || $char === '`') {
                if ($ended) {
                    return true;
                }
                $i = self::skipQuoted($sql, $i, $char);
                continue;
            }
            if ($char === '-' && ($sql[$i + 1] ?? '') === '-' || $char === '#') {
                $end = \strpos($sql, "\n", $i);
                $i = $end === false ? $length : $end;
                continue;
            }
            if ($char === '/' && ($sql[$i + 1] ?? '') === '*') {
                $end = \strpos($sql, '*/', $i + 2);
                $i = $end === false ? $length : $end + 1;
                continue;
            }
            if ($char === ';') {
                $ended = true;
                continue;
            }
            if ($ended && !\ctype_space($char)) {
                return true;
            }
        }

        return false;
    }

    private static function skipQuoted(string $sql, int $start, string $quote): int
    {
        $length = \strlen($sql);
        for ($i = $start + 1; $i < $length; $i++) {
            if ($sql[$i] === '\\' && $quote !== '`') {
                $i++;
                continue;
            }
            if ($sql[$i] === $quote) {
                if (($sql[$i + 1] ?? '') === $quote) {
                    $i++;
                    continue;
                }

                return $i;
            }
        }

        return $length;
    }
}
