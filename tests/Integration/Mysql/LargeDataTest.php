<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

/** Packets split at 16 MiB, large results, several result sets. */
final class LargeDataTest extends MysqlTestCase
{
    public function testASixteenMegabyteBlobMakesTheRoundTripIntact(): void
    {
        $table = $this->createTable('id int PRIMARY KEY, data longblob');
        $connection = $this->connect();
        $blob = \random_bytes(16 * 1024 * 1024 + 100); // above one packet's 0xFFFFFF bytes, both ways
        $connection->execute("INSERT INTO $table VALUES (1, ?)", [$blob]);

        self::assertSame(\md5($blob), $connection->queryValue("SELECT MD5(data) FROM $table"), 'what reached the server');
        self::assertTrue($blob === $connection->queryValue("SELECT data FROM $table WHERE id = ?", [1]), 'prepared, binary rows');
        self::assertTrue($blob === $connection->command("SELECT data FROM $table")->rows[0]['data'], 'text rows');
    }

    public function testAHundredThousandRowResultIsReadWhole(): void
    {
        $connection = $this->connect();
        \gc_collect_cycles();
        $before = \memory_get_usage();
        $rows = $connection->queryAll('SELECT seq AS id, CONCAT(?, seq) AS name FROM seq_1_to_100000', ['row-']);
        $held = \memory_get_usage() - $before;

        self::assertCount(100_000, $rows);
        self::assertSame(['id' => 100_000, 'name' => 'row-100000'], $rows[99_999]);
        $peak = \memory_get_peak_usage();
        unset($rows);
        // The rows themselves (~45 MB as PHP arrays here); the raw packets are not kept beside them.
        self::assertLessThan(2.0 * $held, $peak - $before + 0.0, 'the raw packets were not held beside the rows');
    }

    public function testAProcedureCallReadsEveryResultSet(): void
    {
        $connection = $this->connect();
        $name = 'proc_' . \bin2hex(\random_bytes(4));
        $connection->command("CREATE PROCEDURE $name() BEGIN SELECT 1 AS a; SELECT 2 AS b; END");
        try {
            $result = $connection->query("CALL $name()");
            self::assertSame([['a' => 1]], $result->rows);
            self::assertSame([['b' => 2]], $result->moreResults[0]->rows);
            self::assertSame(3, $connection->queryValue('SELECT 3'), 'nothing left unread on the wire');
            $text = $connection->command("CALL $name()");
            self::assertSame([['b' => 2]], $text->moreResults[0]->rows);
        } finally {
            $connection->command("DROP PROCEDURE $name");
        }
    }
}
