<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Frameworks;

use Bobbin\Frameworks\Database\Placeholders;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class PlaceholdersTest extends TestCase
{
    /** @return iterable<string, array{string, string, array<int|string, int>}> */
    public static function statements(): iterable
    {
        yield 'no placeholder' => ['SELECT 1', 'SELECT 1', []];
        yield 'positional' => ['SELECT * FROM t WHERE a = ? AND b = ?', 'SELECT * FROM t WHERE a = $1 AND b = $2', [1 => 1, 2 => 2]];
        yield 'named, one used twice' => ['UPDATE t SET a = :a WHERE b = :b OR c = :a', 'UPDATE t SET a = $1 WHERE b = $2 OR c = $1', ['a' => 1, 'b' => 2]];
        yield 'casts stay' => ['SELECT ?::int, :v::text, now()::date', 'SELECT $1::int, $2::text, now()::date', [1 => 1, 'v' => 2]];
        yield 'string literal' => ["SELECT '?', ':x', 'it''s ?', ?", "SELECT '?', ':x', 'it''s ?', \$1", [1 => 1]];
        yield 'escape string' => ["SELECT E'\\' ?', ?", "SELECT E'\\' ?', \$1", [1 => 1]];
        yield 'quoted identifier' => ['SELECT "a?b", "c:d" FROM t WHERE x = ?', 'SELECT "a?b", "c:d" FROM t WHERE x = $1', [1 => 1]];
        yield 'dollar quoted' => ['SELECT $$ ? :x $$, $f$ ? $f$, ?', 'SELECT $$ ? :x $$, $f$ ? $f$, $1', [1 => 1]];
        yield 'line comment' => ["SELECT 1 -- why? :because\n, ?", "SELECT 1 -- why? :because\n, \$1", [1 => 1]];
        yield 'nested block comment' => ['SELECT /* ? /* :x */ ? */ ?', 'SELECT /* ? /* :x */ ? */ $1', [1 => 1]];
        yield 'escaped question mark (JSON operator)' => ["SELECT data ?? 'k', ?", "SELECT data ? 'k', \$1", [1 => 1]];
        yield 'a word ending in e before a quote' => ["SELECT name='?' , ?", "SELECT name='?' , \$1", [1 => 1]];
        yield 'existing $n left alone' => ['SELECT $1', 'SELECT $1', []];
        yield 'array slice colon' => ['SELECT a[1:2] FROM t WHERE b = ?', 'SELECT a[1:2] FROM t WHERE b = $1', [1 => 1]];
    }

    /** @param array<int|string, int> $map */
    #[DataProvider('statements')]
    public function testPlaceholdersBecomePostgresNumbersOutsideLiteralsAndComments(string $sql, string $expected, array $map): void
    {
        self::assertSame([$expected, $map], Placeholders::convert($sql));
    }
}
