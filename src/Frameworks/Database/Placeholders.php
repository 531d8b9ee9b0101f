<?php

declare(strict_types=1);

namespace Bobbin\Frameworks\Database;

/**
 * SQL written for PDO or Doctrine DBAL (`?` and `:name` placeholders) as PostgreSQL numbers them
 * (`$1`, `$2`…): a pure rewrite of the statement text, cached per text.
 *
 * Placeholders are not looked for inside string literals ('…', E'…' with backslash escapes),
 * quoted identifiers ("…"), dollar-quoted strings ($tag$…$tag$), comments (-- and nested /* *\/)
 * or after a colon of a `::` cast. `??` is a literal `?` (PDO's escape for PostgreSQL's JSON
 * operators ?, ?| and ?&). A named placeholder used twice is one parameter.
 */
final class Placeholders
{
    private const CACHE_LIMIT = 512;

    /** @var array<string, array{string, array<int|string, int>}> */
    private static array $cache = [];

    private function __construct()
    {
    }

    /**
     * @return array{string, array<int|string, int>} the rewritten SQL, and for each placeholder
     *         (1-based position for `?`, the name without its colon for `:name`) its $number
     */
    public static function convert(string $sql): array
    {
        if (isset(self::$cache[$sql])) {
            return self::$cache[$sql];
        }
        if (\strpbrk($sql, '?:') === false) {
            $converted = [$sql, []];
        } else {
            $converted = self::rewrite($sql);
        }
        if (\count(self::$cache) >= self::CACHE_LIMIT) {
            self::$cache = [];
        }

        return self::$cache[$sql] = $converted;
    }

    /** @return array{string, array<int|string, int>} */
    private static function rewrite(string $sql): array
    {
        $out = '';
        $map = [];
        $positional = 0;
        $length = \strlen($sql);
        $i = 0;
        while ($i < $length) {
            $next = \strcspn($sql, "?:'\"\$-/Ee", $i);
            $out .= \substr($sql, $i, $next);
            $i += $next;
            if ($i >= $length) {
                break;
            }
            $char = $sql[$i];
            $end = match ($char) {
                '\'' => self::endOfQuoted($sql, $i, '\'', false),
                '"' => self::endOfQuoted($sql, $i, '"', false),
                'E', 'e' => ($sql[$i + 1] ?? '') === '\'' && !self::continuesWord($sql, $i)
                    ? self::endOfQuoted($sql, $i + 1, '\'', true) : $i + 1,
                '$' => self::endOfDollarQuoted($sql, $i),
                '-' => ($sql[$i + 1] ?? '') === '-' ? self::endOfLineComment($sql, $i) : $i + 1,
                '/' => ($sql[$i + 1] ?? '') === '*' ? self::endOfBlockComment($sql, $i) : $i + 1,
                default => null,
            };
            if ($end !== null) {
                $out .= \substr($sql, $i, $end - $i);
                $i = $end;
                continue;
            }
            if ($char === '?') {
                if (($sql[$i + 1] ?? '') === '?') {
                    $out .= '?';
                    $i += 2;
                    continue;
                }
                $number = \count($map) + 1;
                $map[++$positional] = $number;
                $out .= '$' . $number;
                $i++;
                continue;
            }
            // ':' — a cast (::), or :name
            if (($sql[$i + 1] ?? '') === ':') {
                $out .= '::';
                $i += 2;
                continue;
            }
            if (\preg_match('/\G:([A-Za-z_][A-Za-z0-9_]*)/', $sql, $m, 0, $i) === 1 && !($i > 0 && $sql[$i - 1] === ':')) {
                $name = $m[1];
                $map[$name] ??= \count($map) + 1;
                $out .= '$' . $map[$name];
                $i += \strlen($m[0]);
                continue;
            }
            $out .= ':';
            $i++;
        }

        return [$out, $map];
    }

    private static function continuesWord(string $sql, int $i): bool
    {
        return $i > 0 && (\ctype_alnum($sql[$i - 1]) || $sql[$i - 1] === '_');
    }

    /** The offset after the closing quote (a doubled quote is part of the text). */
    private static function endOfQuoted(string $sql, int $open, string $quote, bool $backslashes): int
    {
        $i = $open + 1;
        $length = \strlen($sql);
        while ($i < $length) {
            $char = $sql[$i];
            if ($backslashes && $char === '\\') {
                $i += 2;
                continue;
            }
            if ($char === $quote) {
                if (($sql[$i + 1] ?? '') === $quote) {
                    $i += 2;
                    continue;
                }

                return $i + 1;
            }
            $i++;
        }

        return $length;
    }

    private static function endOfDollarQuoted(string $sql, int $i): int
    {
        if (\preg_match('/\G\$([A-Za-z_][A-Za-z0-9_]*)?\$/', $sql, $m, 0, $i) !== 1 || self::continuesWord($sql, $i)) {
            return $i + 1; // a $1-style parameter or a $ inside a word
        }
        $close = \strpos($sql, $m[0], $i + \strlen($m[0]));

        return $close === false ? \strlen($sql) : $close + \strlen($m[0]);
    }

    private static function endOfLineComment(string $sql, int $i): int
    {
        $end = \strpos($sql, "\n", $i);

        return $end === false ? \strlen($sql) : $end + 1;
    }

    private static function endOfBlockComment(string $sql, int $i): int
    {
        $depth = 0;
        $length = \strlen($sql);
        while ($i < $length) {
            if ($sql[$i] === '/' && ($sql[$i + 1] ?? '') === '*') {
                $depth++;
                $i += 2;
            } elseif ($sql[$i] === '*' && ($sql[$i + 1] ?? '') === '/') {
                $i += 2;
                if (--$depth === 0) {
                    return $i;
                }
            } else {
                $i++;
            }
        }

        return $length;
    }
}
