<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Postgres;

use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\PoolConfig;
use PHPUnit\Framework\TestCase;

final class ConfigTest extends TestCase
{
    public function testDescriptionsMaskPasswordsInKeyValueStrings(): void
    {
        $config = new ConnectionConfig("host=db password='s3 cret' user=app");

        self::assertSame('host=db password=*** user=app', $config->describe());
    }

    public function testDescriptionsMaskPasswordsInUris(): void
    {
        self::assertSame('postgresql://app:***@db:5432/x', (new ConnectionConfig('postgresql://app:secret@db:5432/x'))->describe());
    }

    public function testThePoolConfigCarriesTheConnectionSettings(): void
    {
        $config = PoolConfig::fromConnectionString('host=db', maxSize: 7, acquireTimeout: 2.5, queryTimeout: 3.0, statementCacheSize: 9);

        self::assertSame(7, $config->maxSize);
        self::assertSame(2.5, $config->acquireTimeout);
        self::assertSame('host=db', $config->connection->connectionString);
        self::assertSame(3.0, $config->connection->queryTimeout);
        self::assertSame(9, $config->connection->statementCacheSize);
    }

    public function testAPoolNeedsAtLeastOneConnection(): void
    {
        $this->expectException(\ValueError::class);
        PoolConfig::fromConnectionString('host=db', maxSize: 0);
    }

    public function testTheMinimumCannotExceedTheMaximum(): void
    {
        $this->expectException(\ValueError::class);
        PoolConfig::fromConnectionString('host=db', minSize: 5, maxSize: 2);
    }

    public function testTimeoutsMustBePositive(): void
    {
        $this->expectException(\ValueError::class);
        new ConnectionConfig('host=db', connectTimeout: 0.0);
    }
}
