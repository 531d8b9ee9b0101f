<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Tarantool;

use Bobbin\Async\Async;
use Bobbin\Tarantool\ConnectionPool;
use Bobbin\Tarantool\Exception\PoolTimeoutException;
use Bobbin\Tarantool\PoolConfig;
use Bobbin\Tests\Support\Tarantool\EmbeddedTarantool;
use PHPUnit\Framework\TestCase;

/** The pool of Tarantool connections on the shared src/Pool. */
final class PoolTest extends TestCase
{
    public function testTwoHundredFibersShareAPoolOfFour(): void
    {
        $pool = new ConnectionPool(PoolConfig::fromUrl(EmbeddedTarantool::url(), maxSize: 4));
        $pool->replace('bench', [1, 'one']);

        $answers = Async::map(\range(1, 200), static fn (int $i): array => $pool->call('sleep_echo', [$i, 0.001]), 200);

        self::assertSame(\array_map(static fn (int $i): array => [$i], \range(1, 200)), $answers);
        $statistics = $pool->statistics();
        self::assertSame(4, $statistics->open);
        self::assertSame(4, $statistics->idle);
        self::assertSame(0, $statistics->inUse);
        self::assertSame([[1, 'one']], $pool->select('bench', 1));
        $pool->close();
    }

    public function testAConnectionBrokenByARestartIsReplacedUnseen(): void
    {
        $pool = new ConnectionPool(PoolConfig::fromUrl(EmbeddedTarantool::url(), maxSize: 2));
        $pool->ping();

        EmbeddedTarantool::restart();
        Async::delay(0.05);

        $pool->ping();
        self::assertSame(1, $pool->statistics()->discarded);
        $pool->close();
    }

    public function testACallerBeyondTheBoundWaitsAtMostTheAcquireTimeout(): void
    {
        $pool = new ConnectionPool(PoolConfig::fromUrl(EmbeddedTarantool::url(), maxSize: 1, acquireTimeout: 0.1));
        $busy = Async::run(static fn () => $pool->call('sleep_echo', [1, 0.5]));
        Async::delay(0.02);

        try {
            $pool->ping();
            self::fail('no timeout');
        } catch (PoolTimeoutException) {
            $this->addToAssertionCount(1);
        }
        self::assertSame([1], $busy->await());
        $pool->close();
    }
}
