<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use PHPUnit\Framework\Attributes\DataProvider;

/** Every column type through both protocols: parameters in, values out, the same either way. */
final class TypeConversionTest extends MysqlTestCase
{
    private const COLUMNS = 'id int PRIMARY KEY, t tinyint, tu tinyint unsigned, s smallint, m mediumint, i int, iu int unsigned,
        b bigint, bu bigint unsigned, f float, d double, dec_ decimal(20,6), dt date, dtt datetime, dt6 datetime(6),
        ts timestamp(3) NULL, tm time, y year, bit8 bit(8), c char(3), v varchar(50), tx mediumtext, bl blob, vb varbinary(10),
        e enum(\'a\',\'b\'), j json, n int NULL';

    /** @return array<string, mixed> */
    private static function values(): array
    {
        return [
            'id' => 1, 't' => -128, 'tu' => 255, 's' => -32768, 'm' => -8388608, 'i' => -2147483648, 'iu' => 4294967295,
            'b' => \PHP_INT_MIN, 'bu' => '18446744073709551615', 'f' => 1.1, 'd' => -1.0E-300, 'dec_' => '12345678901234.123456',
            'dt' => '2024-02-29', 'dtt' => '2024-01-02 03:04:05', 'dt6' => '2024-01-02 03:04:05.123456',
            'ts' => '2024-05-06 07:08:09.250', 'tm' => '-838:59:59', 'y' => 2155, 'bit8' => 255, 'c' => 'äöü',
            'v' => 'Hello, 世界 🎉', 'tx' => \str_repeat('x', 70000), 'bl' => "\x00\x01\xff\x00binary", 'vb' => "\x00\x00",
            'e' => 'b', 'j' => '{"a": [1, 2.5, "x"]}', 'n' => null,
        ];
    }

    /** @return iterable<string, array{string}> */
    public static function protocols(): iterable
    {
        yield 'prepared (binary rows)' => ['prepared'];
        yield 'text (COM_QUERY)' => ['text'];
    }

    private function select(Connection $connection, string $protocol, string $sql): array
    {
        $rows = $protocol === 'prepared' ? $connection->queryAll($sql, []) : $connection->command($sql)->rows;
        self::assertCount(1, $rows);

        return $rows[0];
    }

    #[DataProvider('protocols')]
    public function testEveryColumnTypeComesBackAsThePhpValueItWasStoredFrom(string $protocol): void
    {
        $table = $this->createTable(self::COLUMNS);
        $connection = $this->connect();
        $values = self::values();
        $connection->execute(
            \sprintf('INSERT INTO %s (%s) VALUES (%s)', $table, \implode(', ', \array_keys($values)), \implode(', ', \array_fill(0, \count($values), '?'))),
            \array_values($values),
        );

        $row = $this->select($connection, $protocol, "SELECT * FROM $table");
        $expected = $values;
        $expected['j'] = $row['j']; // MariaDB keeps JSON as the text it was given
        self::assertSame($expected, $row);
        self::assertSame(['a' => [1, 2.5, 'x']], \json_decode($row['j'], true));
    }

    #[DataProvider('protocols')]
    public function testExpressionsHaveTheTypesOfTheirResults(string $protocol): void
    {
        $row = $this->select($this->connect(), $protocol, "SELECT 1 AS one, 1.5 AS dec_, 2.5e0 AS dbl, 'x' AS str, NULL AS nul,
            CAST('2024-01-02 03:04:05.5' AS DATETIME(1)) AS dt, 18446744073709551615 AS big, b'101' AS bits, 9223372036854775807 AS max_");

        self::assertSame([
            'one' => 1, 'dec_' => '1.5', 'dbl' => 2.5, 'str' => 'x', 'nul' => null, 'dt' => '2024-01-02 03:04:05.5',
            'big' => '18446744073709551615', 'bits' => "\x05", 'max_' => \PHP_INT_MAX,
        ], $row);
    }

    public function testParametersOfEveryPhpTypeReachTheServerAsTheirSqlValues(): void
    {
        $connection = $this->connect();
        $row = $connection->queryOne(
            'SELECT ? AS i, ? AS f, ? AS s, ? AS t, ? AS n, ? AS d, ? AS j, ? AS e, HEX(?) AS bin',
            [\PHP_INT_MAX, 0.1, 'it\'s "quoted"', true, null, new \DateTimeImmutable('2024-01-02 03:04:05.000123'), ['k' => 'ü'], Suit::Hearts, "\x00\xff"],
        );

        self::assertSame([
            'i' => \PHP_INT_MAX, 'f' => 0.1, 's' => 'it\'s "quoted"', 't' => 1, 'n' => null,
            'd' => '2024-01-02 03:04:05.000123', 'j' => '{"k":"ü"}', 'e' => 'H', 'bin' => '00FF',
        ], $row);
    }

    public function testJsonColumnsAreDecodedOnRequest(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, j json');
        $connection = $this->connect(self::config(decodeJson: true));
        $connection->execute("INSERT INTO $table VALUES (1, ?)", [['a' => [1, 2], 'big' => 12345678901234567890]]);

        self::assertSame(['a' => [1, 2], 'big' => 1.2345678901234567E+19], $connection->queryValue("SELECT j FROM $table"));
        self::assertSame(['a' => [1, 2], 'big' => 1.2345678901234567E+19], $connection->command("SELECT j FROM $table")->rows[0]['j']);
    }

    public function testAffectedRowsLastInsertIdAndWarningsAreReported(): void
    {
        $table = $this->createTable('id int AUTO_INCREMENT PRIMARY KEY, v varchar(3)');
        $connection = $this->connect();
        $result = $connection->query("INSERT INTO $table (v) VALUES (?), (?)", ['a', 'b']);
        self::assertSame(2, $result->affectedRows);
        self::assertSame(1, $result->lastInsertId, 'the first id of a multi-row insert');

        self::assertSame(2, $connection->execute("UPDATE $table SET v = ?", ['zz']));
        $truncated = $connection->command("UPDATE IGNORE $table SET v = 'toolong'");
        self::assertSame(2, $truncated->warnings);
    }

    public function testACachedStatementSeesColumnsAddedSinceItWasPrepared(): void
    {
        $table = $this->createTable('id int PRIMARY KEY');
        $connection = $this->connect();
        $connection->execute("INSERT INTO $table VALUES (?)", [1]);
        self::assertSame([['id' => 1]], $connection->queryAll("SELECT * FROM $table WHERE id > ?", [0]));
        self::assertSame([['id' => 1]], $connection->queryAll("SELECT * FROM $table WHERE id > ?", [0]), 'metadata left out');
        $connection->command("ALTER TABLE $table ADD COLUMN extra varchar(5) NOT NULL DEFAULT 'x'");

        self::assertSame([['id' => 1, 'extra' => 'x']], $connection->queryAll("SELECT * FROM $table WHERE id > ?", [0]));
    }

    public function testWithoutAStatementCacheEachStatementIsClosedAfterItRan(): void
    {
        $connection = $this->connect(self::config(statementCacheSize: 0));
        $before = (int) $connection->command("SHOW SESSION STATUS LIKE 'Com_stmt_close'")->rows[0]['Value'];
        for ($i = 1; $i <= 3; $i++) {
            self::assertSame($i + 1, $connection->queryValue('SELECT ? + 1', [$i]));
        }
        self::assertSame(0, $connection->cachedStatements());
        $closed = (int) $connection->command("SHOW SESSION STATUS LIKE 'Com_stmt_close'")->rows[0]['Value'] - $before;

        self::assertSame(3, $closed, 'every prepared statement closed, none left on the server');
    }

    public function testTheStatementCacheKeepsTheMostRecentlyUsedAndClosesTheRest(): void
    {
        $connection = $this->connect(self::config(statementCacheSize: 2));
        $closes = static fn (): int => (int) $connection->command("SHOW SESSION STATUS LIKE 'Com_stmt_close'")->rows[0]['Value'];
        $before = $closes();
        $connection->queryValue('SELECT ? + 1', [1]);
        $connection->queryValue('SELECT ? + 2', [1]);
        $connection->queryValue('SELECT ? + 1', [1]); // used again: the "+ 2" one is now the oldest
        $connection->queryValue('SELECT ? + 3', [1]);

        self::assertSame(2, $connection->cachedStatements());
        self::assertSame(1, $closes() - $before, 'the evicted statement was closed on the server');
        $prepares = (int) $connection->command("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")->rows[0]['Value'];
        $connection->queryValue('SELECT ? + 1', [1]);
        self::assertSame($prepares, (int) $connection->command("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")->rows[0]['Value'], 'the recently used one was kept');
    }
}

enum Suit: string
{
    case Hearts = 'H';
}
