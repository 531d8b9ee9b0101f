<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

/**
 * A refused copy must not harm the original: the engine refuses the clone before it copies
 * anything, so no half-made copy's destructor closes the socket the two would have shared.
 */
final class CopyRefusedTest extends PostgresTestCase
{
    public function testARefusedCloneLeavesTheConnectionWorking(): void
    {
        $connection = $this->connect();
        $pid = $connection->pid();

        try {
            $copy = clone $connection;
            self::fail('a connection was cloned');
        } catch (\Error $refused) {
            self::assertStringContainsString('::__clone()', $refused->getMessage());
        }

        self::assertFalse($connection->isClosed());
        self::assertSame($pid, (int) $connection->queryValue('SELECT pg_backend_pid()'));
    }

    public function testARefusedSerializeLeavesThePoolWorking(): void
    {
        $pool = $this->pool(maxSize: 1);
        self::assertSame(1, $pool->queryValue('SELECT 1'));

        try {
            \serialize($pool);
            self::fail('a pool was serialized');
        } catch (\LogicException $refused) {
            self::assertStringContainsString('cannot be serialized', $refused->getMessage());
        }

        self::assertSame(2, $pool->queryValue('SELECT 2'));
    }
}
