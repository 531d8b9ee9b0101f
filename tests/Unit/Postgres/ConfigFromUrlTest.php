<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Postgres;

use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\PoolConfig;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Postgres settings from a URL and changed one at a time, as the MySQL client's are (issue 39). */
final class ConfigFromUrlTest extends TestCase
{
    public function testAUrlBecomesTheConnectionStringWithTheClientsOwnSettingsBeside(): void
    {
        $config = ConnectionConfig::fromUrl('postgresql://app:secret@db:5432/shop?application_name=web', connectTimeout: 2.0, queryTimeout: 3.0, statementCacheSize: 16, decodeJson: true);

        self::assertSame('postgresql://app:secret@db:5432/shop?application_name=web', $config->connectionString);
        self::assertSame(2.0, $config->connectTimeout);
        self::assertSame(3.0, $config->queryTimeout);
        self::assertSame(16, $config->statementCacheSize);
        self::assertTrue($config->decodeJson);
        self::assertSame('postgresql://app:***@db:5432/shop?application_name=web', $config->describe());
    }

    public function testThePostgresSchemeLibpqAlsoAcceptsIsAcceptedInAnyCase(): void
    {
        self::assertSame('postgres://db/shop', ConnectionConfig::fromUrl('postgres://db/shop')->connectionString);
        self::assertSame('PostgreSQL://db/shop', ConnectionConfig::fromUrl('PostgreSQL://db/shop')->connectionString);
    }

    /** @return iterable<string, array{string}> */
    public static function notPostgresUrls(): iterable
    {
        yield 'a key/value string' => ['host=db dbname=shop'];
        yield 'another database' => ['mysql://app@db/shop'];
        yield 'no scheme' => ['db:5432/shop'];
        yield 'empty' => [''];
    }

    #[DataProvider('notPostgresUrls')]
    public function testAnythingButAPostgresUrlIsRefusedWithoutEchoingIt(string $notAUrl): void
    {
        try {
            ConnectionConfig::fromUrl($notAUrl . ($notAUrl === '' ? '' : '?password=hunter2'));
            self::fail('accepted ' . $notAUrl);
        } catch (\ValueError $refused) {
            self::assertSame('A PostgreSQL URL starts with postgresql:// or postgres://', $refused->getMessage());
        }
    }

    public function testTlsInsecureIsReadFromTheUrlAsFromAnyConnectionString(): void
    {
        self::assertTrue(ConnectionConfig::fromUrl('postgresql://db/shop?sslmode=require&tls_insecure=1')->isTlsInsecure());
        $this->expectException(\ValueError::class);
        ConnectionConfig::fromUrl('postgresql://db/shop?sslmode=require');
    }

    public function testWithChangesOnlyTheNamedSettings(): void
    {
        $base = ConnectionConfig::fromUrl('postgresql://app:secret@db/shop', connectTimeout: 2.0, queryTimeout: 3.0);

        $changed = $base->with(queryTimeout: null, statementCacheSize: 0, persistent: true);

        self::assertNotSame($base, $changed);
        self::assertSame($base->connectionString, $changed->connectionString);
        self::assertSame(2.0, $changed->connectTimeout);
        self::assertNull($changed->queryTimeout);
        self::assertSame(0, $changed->statementCacheSize);
        self::assertTrue($changed->persistent);
        self::assertSame(3.0, $base->queryTimeout, 'the original is unchanged');
        self::assertSame(256, $base->statementCacheSize);
    }

    public function testWithValidatesLikeTheConstructor(): void
    {
        $base = ConnectionConfig::fromUrl('postgresql://db/shop');

        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('The connect timeout must be positive');
        $base->with(connectTimeout: 0.0);
    }

    public function testWithRecomputesTheTlsSettingsOfANewConnectionString(): void
    {
        $base = ConnectionConfig::fromUrl('postgresql://db/shop');

        $insecure = $base->with(connectionString: 'postgresql://db/shop?sslmode=require', tlsInsecure: true);

        self::assertTrue($insecure->isTlsInsecure());
        self::assertStringContainsString('sslmode=require', $insecure->libpqString());
        self::assertFalse($base->isTlsInsecure());
    }

    public function testThePoolConfigTakesAUrlWithThePoolAndTheConnectionSettings(): void
    {
        $config = PoolConfig::fromUrl('postgresql://app:secret@db/shop', maxSize: 7, acquireTimeout: 2.5, queryTimeout: 3.0, decodeJson: true);

        self::assertSame(7, $config->maxSize);
        self::assertSame(2.5, $config->acquireTimeout);
        self::assertSame('postgresql://app:secret@db/shop', $config->connection->connectionString);
        self::assertSame(3.0, $config->connection->queryTimeout);
        self::assertTrue($config->connection->decodeJson);
        self::assertSame(7, $config->poolSettings()->maxSize);
    }

    public function testThePoolConfigRefusesAKeyValueStringAsAUrl(): void
    {
        $this->expectException(\ValueError::class);
        PoolConfig::fromUrl('host=db');
    }
}
