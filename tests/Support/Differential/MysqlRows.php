<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Differential;

use Random\Randomizer;

/**
 * Random rows of a table with a column of every MySQL/MariaDB type, each value drawn with what a
 * writer sends (a PHP parameter, or an SQL literal for the text protocol) and what a reader
 * must get back under docs/MYSQL.md's mapping ("Values by column type").
 *
 * What the server itself changes, and so the expected value says: CHAR drops trailing spaces,
 * BINARY(n) is padded with NUL bytes to n, SET lists its members in the column's order once each,
 * FLOAT keeps 4 bytes and is read with 6 significant digits (docs/MYSQL.md, "The FLOAT rule"),
 * DATETIME/TIMESTAMP(6) show all 6 fractional digits. -0.0 is not drawn (a DOUBLE stores it as
 * given, but a text literal "-0" is the integer 0).
 */
final class MysqlRows
{
    public const TABLE_COLUMNS = 'id int PRIMARY KEY, ti tinyint, tiu tinyint unsigned, si smallint, siu smallint unsigned,
        mi mediumint, miu mediumint unsigned, i int, iu int unsigned, bi bigint, biu bigint unsigned, dec_ decimal(30,8),
        f float, d double, b1 bit(1), b13 bit(13), b64 bit(64), dt date, dtm datetime(6), ts timestamp(6) NULL, tm time,
        y year, c char(10), v varchar(300), tx text, bn binary(8), vb varbinary(300), bl blob,
        e enum(\'a\', \'b\', \'ç\', \'😀\'), st set(\'x\', \'y\', \'z\', \'ü\'), j json';

    /** Columns whose parameter goes through CAST(? AS UNSIGNED): a BIT is bound from its number. */
    private const BITS = ['b1' => 1, 'b13' => 13, 'b64' => 64];
    private const TEXT = ['c', 'v', 'tx', 'e', 'st', 'j'];
    private const BINARY = ['bn', 'vb', 'bl'];
    private const INTS = [
        'ti' => [-128, 127], 'tiu' => [0, 255], 'si' => [-32768, 32767], 'siu' => [0, 65535],
        'mi' => [-8388608, 8388607], 'miu' => [0, 16777215], 'i' => [-2147483648, 2147483647], 'iu' => [0, 4294967295],
        'bi' => [\PHP_INT_MIN, \PHP_INT_MAX],
    ];
    private const ENUM = ['a', 'b', 'ç', '😀'];
    private const SET = ['x', 'y', 'z', 'ü'];

    /** @return list<string> the columns after id, in table order */
    public static function columns(): array
    {
        return ['ti', 'tiu', 'si', 'siu', 'mi', 'miu', 'i', 'iu', 'bi', 'biu', 'dec_', 'f', 'd', 'b1', 'b13', 'b64', 'dt', 'dtm', 'ts', 'tm', 'y', 'c', 'v', 'tx', 'bn', 'vb', 'bl', 'e', 'st', 'j'];
    }

    /** INSERT with a placeholder per column (BIT columns through CAST), for Bobbin's query() and mysqli's prepare(). */
    public static function insertSql(string $table, string $tail = ''): string
    {
        $placeholders = ['?'];
        foreach (self::columns() as $column) {
            $placeholders[] = isset(self::BITS[$column]) ? 'CAST(? AS UNSIGNED)' : '?';
        }

        return \sprintf('INSERT INTO %s (id, %s) SELECT %s FROM DUAL%s', $table, \implode(', ', self::columns()), \implode(', ', $placeholders), $tail);
    }

    /**
     * INSERT with the values written out as SQL literals (strings in hex, text as _utf8mb4), for
     * the text protocol of both clients.
     *
     * @param array<string, mixed> $params by column, id included
     */
    public static function insertLiteralSql(string $table, array $params): string
    {
        $literals = [];
        foreach ($params as $column => $value) {
            $literals[] = self::literal($column, $value);
        }

        return \sprintf('INSERT INTO %s (%s) VALUES (%s)', $table, \implode(', ', \array_keys($params)), \implode(', ', $literals));
    }

    /**
     * One row: the parameters by column (id first) and the row a reader must get.
     *
     * @return array{array<string, mixed>, array<string, mixed>}
     */
    public static function draw(Randomizer $random, int $id): array
    {
        $params = ['id' => $id];
        $expected = ['id' => $id];
        foreach (self::columns() as $column) {
            if ($random->getInt(0, 9) === 0) {
                $params[$column] = $expected[$column] = null;
                continue;
            }
            [$params[$column], $expected[$column]] = self::value($random, $column);
        }

        return [$params, $expected];
    }

    /** @return array{mixed, mixed} what is sent, what comes back */
    private static function value(Randomizer $random, string $column): array
    {
        if (isset(self::INTS[$column])) {
            [$min, $max] = self::INTS[$column];
            $value = $random->getInt(0, 3) === 0 ? [$min, $max, 0, $min + 1, $max - 1][$random->getInt(0, 4)] : $random->getInt($min, $max);

            return [$value, $value];
        }
        if (isset(self::BITS[$column])) {
            $value = self::unsigned($random, self::BITS[$column]);

            return [$value, $value];
        }

        return match ($column) {
            'biu' => (static fn (int|string $v): array => [$v, $v])(self::unsigned($random, 64)),
            'dec_' => (static fn (string $v): array => [$v, $v])(self::decimal($random)),
            'f' => self::float($random),
            'd' => (static fn (float $v): array => [$v, $v])(RandomValues::double($random)),
            'dt' => (static fn (string $v): array => [$v, $v])(\substr(self::dateTime($random, -30610224000, 253402300799), 0, 10)),
            'dtm' => (static fn (string $v): array => [$v, $v])(self::dateTime($random, -30610224000, 253402300799)),
            'ts' => (static fn (string $v): array => [$v, $v])(self::dateTime($random, 1, 2147483647)),
            'tm' => (static fn (string $v): array => [$v, $v])(self::time($random)),
            'y' => (static fn (int $v): array => [$v, $v])($random->getInt(0, 20) === 0 ? 0 : $random->getInt(1901, 2155)),
            'c' => (static fn (string $v): array => [$v, \rtrim($v, ' ')])(self::utf8Of($random, 10)),
            'v' => (static fn (string $v): array => [$v, $v])(self::utf8Of($random, 300)),
            'tx' => (static fn (string $v): array => [$v, $v])(self::utf8Of($random, 2000)),
            'bn' => (static fn (string $v): array => [$v, \str_pad($v, 8, "\0")])(RandomValues::bytes($random, 8)),
            'vb' => (static fn (string $v): array => [$v, $v])(RandomValues::bytes($random, 300)),
            'bl' => (static fn (string $v): array => [$v, $v])(RandomValues::bytes($random, 3000)),
            'e' => (static fn (string $v): array => [$v, $v])(self::ENUM[$random->getInt(0, 3)]),
            'st' => self::set($random),
            'j' => (static fn (string $v): array => [$v, $v])(self::json($random)),
            default => throw new \LogicException("no column $column"),
        };
    }

    /**
     * @param array<string, mixed> $params
     * @return list<mixed> in insertSql()'s order
     */
    public static function parameters(array $params): array
    {
        return \array_values($params);
    }

    private static function literal(string $column, mixed $value): string
    {
        return match (true) {
            $value === null => 'NULL',
            \is_int($value) => (string) $value,
            \is_float($value) => self::floatLiteral($value),
            isset(self::BITS[$column]), $column === 'biu', $column === 'dec_' => (string) $value,
            \in_array($column, self::TEXT, true) => $value === '' ? "''" : "_utf8mb4 X'" . \bin2hex((string) $value) . "'",
            \in_array($column, self::BINARY, true) => $value === '' ? "''" : "X'" . \bin2hex((string) $value) . "'",
            default => "'" . $value . "'", // dates and times: digits, '-', ':', '.', ' '
        };
    }

    /** A double as a literal the server reads as that double (with an exponent: never a DECIMAL). */
    private static function floatLiteral(float $value): string
    {
        $text = \var_export($value, true);

        return \str_contains($text, 'E') ? $text : $text . 'E0';
    }

    private static function unsigned(Randomizer $random, int $bits): int|string
    {
        if ($bits < 64) {
            return $random->getInt(0, (1 << $bits) - 1);
        }
        $edges = ['0', '1', (string) \PHP_INT_MAX, '9223372036854775808', '18446744073709551615', '18446744073709551614'];
        $digits = $random->getInt(0, 2) === 0
            ? $edges[$random->getInt(0, \count($edges) - 1)]
            : \sprintf('%u', \unpack('q', $random->getBytes(8))[1] ?? 0);
        if (\strlen($digits) < 19 || \strlen($digits) === 19 && \strcmp($digits, (string) \PHP_INT_MAX) <= 0) {
            return (int) $digits;
        }

        return $digits;
    }

    private static function decimal(Randomizer $random): string
    {
        $integer = \ltrim(self::digits($random, $random->getInt(1, 22)), '0');
        $fraction = self::digits($random, 8);
        $negative = $random->getInt(0, 1) === 1 && ($integer !== '' || $fraction !== '00000000');

        return ($negative ? '-' : '') . ($integer === '' ? '0' : $integer) . '.' . $fraction;
    }

    private static function digits(Randomizer $random, int $count): string
    {
        $digits = '';
        for ($i = 0; $i < $count; $i++) {
            $digits .= (string) $random->getInt(0, 9);
        }

        return $digits;
    }

    /** @return array{float, float} a value a FLOAT holds, and what reads back: its 6 significant digits */
    private static function float(Randomizer $random): array
    {
        do {
            $value = match ($random->getInt(0, 3)) {
                0 => \unpack('g', $random->getBytes(4))[1] ?? 0.0, // any bit pattern, denormals included
                1 => \round($random->getInt(-1_000_000, 1_000_000) / 10 ** $random->getInt(0, 6), 6),
                2 => (float) ((1 << 24) + $random->getInt(-20, 20)),
                default => (float) $random->getInt(-99999, 99999),
            };
        } while (!\is_finite($value) || $value === 0.0 && \fdiv(1, $value) < 0);
        $stored = \unpack('g', \pack('g', $value))[1] ?? 0.0;

        return [$stored, (float) \sprintf('%.5e', $stored)];
    }

    private static function dateTime(Randomizer $random, int $from, int $to): string
    {
        return \gmdate('Y-m-d H:i:s', $random->getInt($from, $to)) . \sprintf('.%06d', $random->getInt(0, 999_999));
    }

    private static function time(Randomizer $random): string
    {
        $seconds = $random->getInt(-(838 * 3600 + 59 * 60 + 59), 838 * 3600 + 59 * 60 + 59);
        $abs = \abs($seconds);

        return \sprintf('%s%02d:%02d:%02d', $seconds < 0 ? '-' : '', \intdiv($abs, 3600), \intdiv($abs % 3600, 60), $abs % 60);
    }

    /** @return array{string, string} members in any order, some twice; read back once each in the column's order */
    private static function set(Randomizer $random): array
    {
        $chosen = [];
        foreach (self::SET as $member) {
            if ($random->getInt(0, 1) === 1) {
                $chosen[] = $member;
            }
        }
        $sent = $chosen;
        if ($chosen !== [] && $random->getInt(0, 3) === 0) {
            $sent[] = $chosen[0];
        }

        return [\implode(',', $random->shuffleArray($sent)), \implode(',', $chosen)];
    }

    private static function json(Randomizer $random, int $depth = 0): string
    {
        return (string) \json_encode(self::jsonValue($random, $depth), $random->getInt(0, 1) === 1 ? \JSON_UNESCAPED_UNICODE : 0);
    }

    private static function jsonValue(Randomizer $random, int $depth): mixed
    {
        $kind = $random->getInt(0, $depth > 2 ? 4 : 6);

        return match ($kind) {
            0 => null,
            1 => $random->getInt(0, 1) === 1,
            2 => $random->getInt(-1_000_000, 1_000_000),
            3 => $random->getInt(-1000, 1000) / 8,
            4 => self::utf8Of($random, 12),
            5 => \array_map(fn (): mixed => self::jsonValue($random, $depth + 1), \range(0, $random->getInt(0, 4))),
            default => (static function () use ($random, $depth): array {
                $map = [];
                for ($i = $random->getInt(0, 4); $i > 0; $i--) {
                    $map['k' . self::utf8Of($random, 5)] = self::jsonValue($random, $depth + 1);
                }

                return $map;
            })(),
        };
    }

    private static function utf8Of(Randomizer $random, int $max): string
    {
        return RandomValues::utf8($random, $max);
    }
}
