<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Sql;

use Bobbin\Sql\StatementCache;
use PHPUnit\Framework\TestCase;

final class StatementCacheTest extends TestCase
{
    /** @var list<string> SQL of the statements handed to the closer, in order */
    private array $closed = [];

    public function testAHitMakesTheStatementTheMostRecentlyUsed(): void
    {
        $cache = $this->cacheOf(3, 'a', 'b', 'c');

        $cache->get('a');

        self::assertSame(['b', 'c', 'a'], $cache->keys());
    }

    public function testTheLeastRecentlyUsedStatementIsEvictedFirst(): void
    {
        $cache = $this->cacheOf(3, 'a', 'b', 'c');
        $cache->get('a');
        $cache->get('b');

        $this->add($cache, 'd');
        $this->add($cache, 'e');

        self::assertSame(['c', 'a'], $this->closed);
        self::assertSame(['b', 'd', 'e'], $cache->keys());
    }

    public function testTheMostRecentlyUsedStatementStaysWhereItIsOnAHit(): void
    {
        $cache = $this->cacheOf(2, 'a', 'b');
        $statement = $cache->get('b');

        self::assertSame($statement, $cache->get('b'));
        self::assertSame(['a', 'b'], $cache->keys());
        self::assertSame('b', $statement?->sql);
    }

    public function testAMissIsNullAndChangesNothing(): void
    {
        $cache = $this->cacheOf(2, 'a', 'b');

        self::assertNull($cache->get('c'));
        self::assertSame(['a', 'b'], $cache->keys());
    }

    public function testMakingRoomBeforePreparingKeepsTheServerWithinTheCapacity(): void
    {
        $cache = $this->cacheOf(2, 'a', 'b');

        $cache->makeRoom();

        self::assertSame(['a'], $this->closed);
        self::assertSame(1, $cache->count());
    }

    public function testWithoutACacheNothingIsKeptAndNothingEvicted(): void
    {
        $cache = $this->cacheOf(0, 'a', 'b');

        self::assertFalse($cache->isEnabled());
        self::assertSame(0, $cache->count());
        self::assertNull($cache->get('a'));
        self::assertSame([], $this->closed);
    }

    public function testForgottenAndClearedStatementsAreNotHandedToTheCloser(): void
    {
        $cache = $this->cacheOf(3, 'a', 'b', 'c');

        $cache->forget('b');
        self::assertSame(['a', 'c'], $cache->keys());
        $cache->clear();

        self::assertSame(0, $cache->count());
        self::assertSame([], $this->closed);
    }

    /** @return StatementCache<\stdClass> */
    private function cacheOf(int $capacity, string ...$sql): StatementCache
    {
        /** @var StatementCache<\stdClass> $cache */
        $cache = new StatementCache($capacity, function (\stdClass $statement): void {
            $this->closed[] = $statement->sql;
        });
        foreach ($sql as $text) {
            $this->add($cache, $text);
        }

        return $cache;
    }

    /** @param StatementCache<\stdClass> $cache */
    private function add(StatementCache $cache, string $sql): void
    {
        $statement = new \stdClass();
        $statement->sql = $sql;
        $cache->add($sql, $statement);
    }
}
