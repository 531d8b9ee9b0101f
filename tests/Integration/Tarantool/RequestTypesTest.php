<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Tarantool\Connection;
use Bobbin\Tarantool\Iterator;
use Bobbin\Tarantool\Update;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** Every request type of the binary protocol against the embedded Tarantool. */
final class RequestTypesTest extends TestCase
{
    private static ?Connection $connection = null;

    public static function setUpBeforeClass(): void
    {
        self::$connection = Connection::connect(EmbeddedTarantool::url());
        self::$connection->eval(<<<'LUA'
            if box.space.items then box.space.items:drop() end
            local s = box.schema.space.create('items', {format = {
                {name = 'id', type = 'unsigned'}, {name = 'name', type = 'string'},
                {name = 'qty', type = 'integer', is_nullable = true}, {name = 'extra', type = 'any', is_nullable = true},
            }})
            s:create_index('primary', {parts = {'id'}})
            s:create_index('by_name', {parts = {'name'}, unique = false})
        LUA);
    }

    public static function tearDownAfterClass(): void
    {
        self::$connection?->eval("box.space.items:drop()");
        self::$connection?->close();
    }

    private function tarantool(): Connection
    {
        \assert(self::$connection !== null);
        self::$connection->eval('box.space.items:truncate()');

        return self::$connection;
    }

    public function testPingMakesARoundTrip(): void
    {
        $this->tarantool()->ping();
        self::assertSame('2.6.0', \substr($this->tarantool()->serverVersion(), 0, 5));
    }

    public function testInsertReturnsTheTupleAndSelectFindsItByPrimaryKey(): void
    {
        $tarantool = $this->tarantool();

        self::assertSame([1, 'one', 10, null], $tarantool->insert('items', [1, 'one', 10, null]));
        self::assertSame([[1, 'one', 10, null]], $tarantool->select('items', 1));
        self::assertSame([[1, 'one', 10, null]], $tarantool->select('items', [1]));
        self::assertSame([], $tarantool->select('items', 2));
    }

    public function testSelectTakesAnIndexByNameAnIteratorALimitAndAnOffset(): void
    {
        $tarantool = $this->tarantool();
        foreach ([[1, 'b'], [2, 'a'], [3, 'b'], [4, 'c'], [5, 'b']] as [$id, $name]) {
            $tarantool->insert('items', [$id, $name]);
        }

        self::assertSame([1, 3, 5], \array_column($tarantool->select('items', 'b', 'by_name'), 0));
        self::assertSame([3, 5], \array_column($tarantool->select('items', 'b', 'by_name', offset: 1), 0));
        self::assertSame([4, 5], \array_column($tarantool->select('items', 3, iterator: Iterator::Gt), 0));
        self::assertSame([3, 2], \array_column($tarantool->select('items', 3, iterator: Iterator::Le, limit: 2), 0));
        self::assertSame([1, 2, 3, 4, 5], \array_column($tarantool->select('items', [], iterator: Iterator::All), 0));
        self::assertSame([5, 4], \array_column($tarantool->select('items', [], 'primary', 2, 0, Iterator::Req), 0));
        $spaceId = (int) $tarantool->eval('return box.space.items.id')[0];
        self::assertSame([2], \array_column($tarantool->select($spaceId, 'a', 1), 0));
    }

    public function testReplaceInsertsOrOverwrites(): void
    {
        $tarantool = $this->tarantool();

        self::assertSame([1, 'first'], $tarantool->replace('items', [1, 'first']));
        self::assertSame([1, 'second'], $tarantool->replace('items', [1, 'second']));
        self::assertSame([[1, 'second']], $tarantool->select('items', 1));
    }

    public function testEveryUpdateOperation(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->insert('items', [1, 'hello world', 10, 0b1100]);

        self::assertSame([1, 'hello world', 15, 0b1100], $tarantool->update('items', 1, [Update::add(2, 5)]));
        self::assertSame([1, 'hello world', 12, 0b1100], $tarantool->update('items', 1, [Update::subtract('qty', 3)]));
        self::assertSame([1, 'hello world', 12, 0b0100], $tarantool->update('items', 1, [Update::bitAnd(3, 0b0110)]));
        self::assertSame([1, 'hello world', 12, 0b0101], $tarantool->update('items', 1, [Update::bitOr(3, 0b0001)]));
        self::assertSame([1, 'hello world', 12, 0b0011], $tarantool->update('items', 1, [Update::bitXor(3, 0b0110)]));
        self::assertSame([1, 'hello there', 12, 0b0011], $tarantool->update('items', 1, [Update::splice(1, 6, 5, 'there')]));
        self::assertSame([1, 'renamed', 12, 3], $tarantool->update('items', 1, [Update::assign('name', 'renamed')]));
        self::assertSame([1, 'renamed', 12, 3, 'tail'], $tarantool->update('items', 1, [Update::insert(-1, 'tail')]));
        self::assertSame([1, 'renamed', 12, 'tail'], $tarantool->update('items', 1, [Update::delete(3, 1)]));
        self::assertSame([1, 'renamed', 13, 'tail'], $tarantool->update('items', 1, [Update::add(2, 1)], 'primary'));
        self::assertSame([1, 'x', 20, 'tail'], $tarantool->update('items', [1], [Update::assign(1, 'x'), Update::assign(2, 20)]));
        self::assertNull($tarantool->update('items', 99, [Update::add(2, 1)]));
    }

    public function testUpsertInsertsAMissingTupleAndUpdatesAnExistingOne(): void
    {
        $tarantool = $this->tarantool();

        $tarantool->upsert('items', [7, 'seven', 1], [Update::add(2, 10)]);
        self::assertSame([[7, 'seven', 1]], $tarantool->select('items', 7));
        $tarantool->upsert('items', [7, 'ignored', 1], [Update::add(2, 10)]);
        self::assertSame([[7, 'seven', 11]], $tarantool->select('items', 7));
    }

    public function testDeleteReturnsTheDeletedTupleOrNull(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->insert('items', [1, 'one']);

        self::assertSame([1, 'one'], $tarantool->delete('items', 1));
        self::assertNull($tarantool->delete('items', 1));
        self::assertSame([], $tarantool->select('items', 1));
    }

    public function testCallReturnsWhatTheFunctionReturned(): void
    {
        $tarantool = $this->tarantool();
        $tarantool->insert('items', [3, 'three']);

        self::assertSame([[3, 'three']], $tarantool->call('box.space.items:get', [3]));
        self::assertSame(['x'], $tarantool->call('sleep_echo', ['x', 0]));
        self::assertSame(['5-x'], $tarantool->call('string.format', ['%d-%s', 5, 'x']));
        self::assertSame([1, 'two', [3]], $tarantool->eval('return ...', [1, 'two', [3]]));
    }

    public function testEvalRunsLuaWithArguments(): void
    {
        self::assertSame([5, 'ab'], $this->tarantool()->eval('local a, b, c = ... return a + b, c .. "b"', [2, 3, 'a']));
        self::assertSame([], $this->tarantool()->eval('local x = 1'));
    }
}
