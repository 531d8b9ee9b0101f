<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Exception\QueryException;
use Bobbin\Tarantool\Exception\UniqueViolationException;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** SQL over the binary protocol: EXECUTE with bound parameters, PREPARE, execute by id, unprepare. */
final class SqlTest extends TestCase
{
    private static ?Connection $connection = null;

    public static function setUpBeforeClass(): void
    {
        self::$connection = Connection::connect(EmbeddedTarantool::url());
        self::$connection->execute('DROP TABLE IF EXISTS sql_items');
        self::$connection->execute('CREATE TABLE sql_items (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(50) NOT NULL UNIQUE, price DOUBLE)');
    }

    public static function tearDownAfterClass(): void
    {
        self::$connection?->execute('DROP TABLE sql_items');
        self::$connection?->close();
    }

    private function tarantool(): Connection
    {
        \assert(self::$connection !== null);
        self::$connection->execute('DELETE FROM sql_items');

        return self::$connection;
    }

    public function testAnInsertReportsTheRowCountAndTheAutoincrementIds(): void
    {
        $result = $this->tarantool()->execute('INSERT INTO sql_items (name, price) VALUES (?, ?), (?, ?)', ['a', 1.5, 'b', 2.0]);

        self::assertSame(2, $result->rowCount);
        self::assertCount(2, $result->autoincrementIds);
        self::assertSame([], $result->rows);
    }

    public function testASelectReturnsRowsByColumnNameWithTheirTypes(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->execute('INSERT INTO sql_items (id, name, price) VALUES (1, ?, ?)', ['apple', 0.5]);
        $tarantool->execute('INSERT INTO sql_items (id, name, price) VALUES (2, ?, NULL)', ['pear']);

        $result = $tarantool->execute('SELECT id, name, price FROM sql_items WHERE id >= ? ORDER BY id', [1]);

        // Unquoted SQL names are upper case in Tarantool.
        self::assertSame([['ID' => 1, 'NAME' => 'apple', 'PRICE' => 0.5], ['ID' => 2, 'NAME' => 'pear', 'PRICE' => null]], $result->rows);
        self::assertSame([['name' => 'ID', 'type' => 'integer'], ['name' => 'NAME', 'type' => 'string'], ['name' => 'PRICE', 'type' => 'double']], $result->columns);
        self::assertSame(2, $result->rowCount);
    }

    public function testNamedParametersAreBoundByName(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->execute('INSERT INTO sql_items (id, name) VALUES (:id, :name)', ['id' => 5, ':name' => 'five']);

        self::assertSame([['NAME' => 'five']], $tarantool->execute('SELECT name FROM sql_items WHERE id = :id', ['id' => 5])->rows);
    }

    public function testAPreparedStatementRunsByItsIdUntilUnprepared(): void
    {
        $tarantool = $this->tarantool();
        $insert = $tarantool->prepare('INSERT INTO sql_items (id, name) VALUES (?, ?)');
        self::assertCount(2, $insert->parameters);
        for ($id = 1; $id <= 3; $id++) {
            self::assertSame(1, $tarantool->execute($insert, [$id, "item $id"])->rowCount);
        }
        $select = $tarantool->prepare('SELECT COUNT(*) AS n FROM sql_items');

        self::assertSame([['N' => 3]], $tarantool->execute($select)->rows);
        self::assertSame([2], $tarantool->eval('return box.info.sql().cache.stmt_count'));
        $tarantool->unprepare($insert);
        $tarantool->unprepare($select);
        self::assertSame([0], $tarantool->eval('return box.info.sql().cache.stmt_count'));
        // Used again after its unprepare, a statement is prepared anew.
        self::assertSame([['N' => 3]], $tarantool->execute($select)->rows);
        $tarantool->unprepare($select);
    }

    public function testADuplicateKeyIsAUniqueViolationWithTheServersCode(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->execute("INSERT INTO sql_items (id, name) VALUES (1, 'x')");

        try {
            $tarantool->execute("INSERT INTO sql_items (id, name) VALUES (2, 'x')");
            self::fail('no error');
        } catch (UniqueViolationException $e) {
            self::assertSame(3, $e->errorCode());
            self::assertStringContainsString('Duplicate key exists', $e->getMessage());
            self::assertSame('ClientError', $e->errorStack()?->type);
        }
    }

    public function testASyntaxErrorIsAQueryException(): void
    {
        $this->expectException(QueryException::class);
        $this->expectExceptionMessageMatches('/Syntax error/i');
        $this->tarantool()->execute('SELEC 1');
    }
}
