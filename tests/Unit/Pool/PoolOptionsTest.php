<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Pool;

use Bobbin\Pool\PoolOptions;
use Bobbin\Pool\PoolSettings;
use Bobbin\Postgres\PoolConfig as PostgresPoolConfig;
use Bobbin\Mysql\PoolConfig as MysqlPoolConfig;
use Bobbin\Tarantool\PoolConfig as TarantoolPoolConfig;
use PHPUnit\Framework\TestCase;

final class PoolOptionsTest extends TestCase
{
    public function testItKnowsExactlyThePoolSettingsConstructorParameters(): void
    {
        $parameters = (new \ReflectionMethod(PoolSettings::class, '__construct'))->getParameters();

        self::assertSame(\array_map(static fn (\ReflectionParameter $p): string => $p->getName(), $parameters), PoolOptions::POOL_SETTINGS);
    }

    public function testThePoolsSettingsGoToPoolSettingsAndTheRestToTheConnection(): void
    {
        [$pool, $connection] = PoolOptions::split(['maxSize' => 7, 'queryTimeout' => 3.0, 'checkAfterIdle' => 1.0]);

        self::assertSame(7, $pool->maxSize);
        self::assertSame(1.0, $pool->checkAfterIdle);
        self::assertSame(5.0, $pool->acquireTimeout, 'the default of PoolSettings');
        self::assertSame(['queryTimeout' => 3.0], $connection);
    }

    public function testAClientsOwnDefaultYieldsToTheCallersSetting(): void
    {
        self::assertSame(4, PoolOptions::split([], ['maxSize' => 4])[0]->maxSize);
        self::assertSame(9, PoolOptions::split(['maxSize' => 9], ['maxSize' => 4])[0]->maxSize);
    }

    public function testASettingGivenByPositionIsRefused(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('by name');

        PoolOptions::split([0, 16]);
    }

    public function testEveryClientsFactoryTakesThePoolAndTheConnectionSettingsByName(): void
    {
        $postgres = PostgresPoolConfig::fromUrl('postgresql://app@db/shop', maxSize: 3, queryTimeout: 2.0);
        $mysql = MysqlPoolConfig::fromUrl('mysql://app@db/shop', maxSize: 3, queryTimeout: 2.0);
        $tarantool = TarantoolPoolConfig::fromUrl('tarantool://db:3301', minSize: 1, requestTimeout: 2.0);

        self::assertSame([3, 2.0], [$postgres->poolSettings()->maxSize, $postgres->connection->queryTimeout]);
        self::assertSame([3, 2.0], [$mysql->pool->maxSize, $mysql->connection->queryTimeout]);
        self::assertSame([1, 4, 2.0], [$tarantool->pool->minSize, $tarantool->pool->maxSize, $tarantool->connection->requestTimeout]);
    }

    public function testANameNeitherThePoolNorTheConnectionKnowsIsAnError(): void
    {
        $this->expectException(\Error::class);
        $this->expectExceptionMessage('Unknown named parameter $maxsize');

        MysqlPoolConfig::fromUrl('mysql://app@db/shop', maxsize: 3);
    }
}
