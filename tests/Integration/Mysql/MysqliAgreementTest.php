<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * The same rows read by Bobbin and by mysqli (mysqlnd, a client nobody here wrote), over the
 * same protocol: mysqli's prepared statements for Bobbin's query(), its text queries with native
 * ints and floats for Bobbin's command(). Random cases are seeded: BOBBIN_TEST_SEED repeats a run.
 */
final class MysqliAgreementTest extends MysqlTestCase
{
    private ?\mysqli $mysqli = null;

    protected function tearDown(): void
    {
        $this->mysqli?->close();
        $this->mysqli = null;
        parent::tearDown();
    }

    /** @return iterable<string, array{string}> */
    public static function protocols(): iterable
    {
        yield 'prepared (binary rows)' => ['prepared'];
        yield 'text (COM_QUERY)' => ['text'];
    }

    #[DataProvider('protocols')]
    public function testBit64ValuesAboveTheLargestIntAreDecimalStringsAsMysqliGivesThem(string $protocol): void
    {
        $table = $this->createTable('id int PRIMARY KEY, b bit(64), b8 bit(8)');
        EmbeddedMysql::client("INSERT INTO $table VALUES (1, 0, 0), (2, 1, 1), (3, 0x7FFFFFFFFFFFFFFF, 127),
            (4, 0x8000000000000000, 128), (5, 0xFFFFFFFFFFFFFFFF, 255), (6, 0x0123456789ABCDEF, 16)");
        $sql = "SELECT b, b8 FROM $table ORDER BY id";

        $rows = $this->bobbin($this->connect(), $protocol, $sql);
        self::assertSame([0, 1, \PHP_INT_MAX, '9223372036854775808', '18446744073709551615', 0x0123456789ABCDEF], \array_column($rows, 'b'));
        self::assertSame([0, 1, 127, 128, 255, 16], \array_column($rows, 'b8'));
        self::assertSame($this->viaMysqli($protocol, $sql), $rows);
    }

    public function testAnAutoIncrementIdAboveTheLargestIntIsTheDecimalStringMysqliReports(): void
    {
        $table = $this->createTable('id bigint unsigned AUTO_INCREMENT PRIMARY KEY, v int');
        EmbeddedMysql::client("ALTER TABLE $table AUTO_INCREMENT = 9223372036854775807");
        $connection = $this->connect();

        self::assertSame(\PHP_INT_MAX, $connection->query("INSERT INTO $table (v) VALUES (?)", [1])->lastInsertId);
        self::assertSame('9223372036854775808', $connection->query("INSERT INTO $table (v) VALUES (?)", [2])->lastInsertId);
        self::assertSame('9223372036854775809', $connection->command("INSERT INTO $table (v) VALUES (3)")->lastInsertId);
        $mysqli = $this->mysqli();
        $mysqli->query("INSERT INTO $table (v) VALUES (4)");
        self::assertSame('9223372036854775810', $mysqli->insert_id, 'mysqli says the same');
    }

    #[DataProvider('protocols')]
    public function testFloatAndDoubleColumnsReadAsMysqliReadsThem(string $protocol): void
    {
        $seed = (int) (\getenv('BOBBIN_TEST_SEED') ?: 35);
        $table = $this->createTable('id int PRIMARY KEY, f float, f3 float(12,3), d double');
        $connection = $this->connect();
        $values = self::floats($seed, 3000);
        foreach (\array_chunk($values, 500, true) as $chunk) {
            $params = [];
            foreach ($chunk as $id => [$float, $fixed, $double]) {
                \array_push($params, $id, $float, $fixed, $double);
            }
            $connection->execute("INSERT INTO $table VALUES " . \implode(', ', \array_fill(0, \count($chunk), '(?, ?, ?, ?)')), $params);
        }
        $sql = "SELECT id, f, f3, d FROM $table ORDER BY id";

        $ours = $this->bobbin($connection, $protocol, $sql);
        $theirs = $this->viaMysqli($protocol, $sql);
        $differ = [];
        foreach ($theirs as $i => $row) {
            if ($ours[$i] !== $row || $row['d'] !== $values[$row['id']][2]) {
                $differ[] = \sprintf('stored %s: Bobbin %s, mysqli %s', \json_encode($values[$row['id']]), \json_encode($ours[$i]), \json_encode($row));
            }
        }
        self::assertCount(\count($values), $ours);
        self::assertSame([], \array_slice($differ, 0, 5), \sprintf('%d of %d rows differ from mysqli\'s, or their DOUBLE from the one stored (seed %d)', \count($differ), \count($values), $seed));
        self::assertSame(16777200.0, $this->bobbin($connection, $protocol, "SELECT CAST(16777217.0 AS FLOAT) AS f")[0]['f']);
    }

    /**
     * Bit patterns over the whole range of a FLOAT (denormals included), decimals as people
     * write them, integers around 2^24 where FLOAT stops being exact, and 7-digit halves.
     *
     * @return array<int, array{float, float, float}> by id: FLOAT, FLOAT(12,3), DOUBLE
     */
    private static function floats(int $seed, int $count): array
    {
        \mt_srand($seed);
        $values = [];
        for ($id = 1; $id <= $count; $id++) {
            $float = match ($id % 4) {
                0 => self::randomFloat32(),
                1 => \round(\mt_rand(-1_000_000, 1_000_000) / 10 ** \mt_rand(0, 6), \mt_rand(0, 6)),
                2 => (float) ((1 << 24) + \mt_rand(-20, 20)) * (\mt_rand(0, 1) === 1 ? 1 : -1),
                default => (float) (\mt_rand(100_000, 999_999) * 10 + 5),
            };
            $fixed = \round(\mt_rand(-99_999_999, 99_999_999) / 1000, 3);
            /** @var array{1: float} $double */
            $double = \unpack('e', \pack('P', \mt_rand() << 32 | \mt_rand()) & "\xff\xff\xff\xff\xff\xff\xef\xff");
            $values[$id] = [$float, $fixed, \is_finite($double[1]) ? $double[1] : 1.5];
        }

        return $values;
    }

    private static function randomFloat32(): float
    {
        do {
            $bits = \mt_rand(0, 0xFFFFFFFF);
        } while (($bits & 0x7F800000) === 0x7F800000); // infinities and NaNs cannot be stored
        /** @var array{1: float} $value */
        $value = \unpack('g', \pack('V', $bits));

        return $value[1];
    }

    /** @return list<array<string, mixed>> */
    private function bobbin(Connection $connection, string $protocol, string $sql): array
    {
        return $protocol === 'prepared' ? $connection->queryAll($sql, []) : $connection->command($sql)->rows;
    }

    /** @return list<array<string, mixed>> */
    private function viaMysqli(string $protocol, string $sql): array
    {
        $mysqli = $this->mysqli();
        if ($protocol === 'text') {
            $result = $mysqli->query($sql);
        } else {
            $statement = $mysqli->prepare($sql);
            $statement->execute();
            $result = $statement->get_result();
        }
        \assert($result instanceof \mysqli_result);

        return $result->fetch_all(\MYSQLI_ASSOC);
    }

    private function mysqli(): \mysqli
    {
        if ($this->mysqli === null) {
            $url = \parse_url(EmbeddedMysql::url());
            \parse_str($url['query'] ?? '', $query);
            \mysqli_report(\MYSQLI_REPORT_ERROR | \MYSQLI_REPORT_STRICT);
            $mysqli = \mysqli_init();
            \assert($mysqli instanceof \mysqli);
            $mysqli->options(\MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
            $mysqli->real_connect(
                $url['host'] ?? 'localhost',
                \urldecode($url['user'] ?? ''),
                \urldecode($url['pass'] ?? ''),
                \ltrim($url['path'] ?? '', '/'),
                $url['port'] ?? 3306,
                \is_string($query['unix_socket'] ?? null) ? $query['unix_socket'] : null,
            );
            $this->mysqli = $mysqli;
        }

        return $this->mysqli;
    }
}
