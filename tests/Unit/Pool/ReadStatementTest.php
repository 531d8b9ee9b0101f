<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

use Bobbin\Pool\ReadStatement;
use PHPUnit\Framework\TestCase;

final class ReadStatementTest extends TestCase
{
    public function testSelectsAndOtherReadsAreReads(): void
    {
        foreach (['SELECT 1', 'select sleep(5)', "  \n SELECT * FROM t FOR UPDATE", '/* pool */ SELECT 1', "-- note\nSHOW TABLES", 'VALUES (1)', 'TABLE t', '(SELECT 1)'] as $sql) {
            self::assertTrue(ReadStatement::matches($sql), $sql);
        }
    }

    public function testWritesAndWhatMayHideOneAreNotReads(): void
    {
        foreach (['INSERT INTO t VALUES (1)', 'update t set a = 1', 'DELETE FROM t', 'WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x', 'CALL p()', 'COMMIT', '', 'SELECTED'] as $sql) {
            self::assertFalse(ReadStatement::matches($sql), $sql);
        }
    }
}
