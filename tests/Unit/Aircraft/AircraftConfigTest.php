<?php

declare(strict_types=1);

namespace Bobbin\Tests\Unit\Aircraft;

use Bobbin\Apps\Aircraft\AircraftConfig;
use PHPUnit\Framework\TestCase;

final class AircraftConfigTest extends TestCase
{
    public function testTheEnvironmentSetsEverySetting(): void
    {
        $config = AircraftConfig::fromEnvironment([
            'DATABASE_URL' => 'host=db dbname=x',
            'DATABASE_POOL_MAX' => '7',
            'DATABASE_POOL_WAIT' => '0.5',
            'DATABASE_PERSISTENT' => '1',
            'DATABASE_POOL_MIN' => '3',
        ]);

        self::assertSame('host=db dbname=x', $config->databaseUrl);
        self::assertSame(7, $config->poolMax);
        self::assertSame(0.5, $config->poolWait);
        self::assertTrue($config->persistentConnection);
        self::assertSame(3, $config->poolMin);
    }

    public function testUnsetPoolSettingsTakeTheDocumentedDefaults(): void
    {
        $config = AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db', 'DATABASE_POOL_MAX' => '']);

        self::assertSame(32, $config->poolMax);
        self::assertSame(5.0, $config->poolWait);
        self::assertFalse($config->persistentConnection);
        self::assertSame(0, $config->poolMin);
    }

    public function testAPoolSizeThatIsNotAnIntegerIsRejectedByName(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('DATABASE_POOL_MAX must be an integer, got "many"');

        AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db', 'DATABASE_POOL_MAX' => 'many']);
    }

    public function testANonPositiveWaitIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('DATABASE_POOL_WAIT');

        AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db', 'DATABASE_POOL_WAIT' => '0']);
    }

    public function testAPoolOfZeroConnectionsIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('DATABASE_POOL_MAX must be at least 1');

        AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db', 'DATABASE_POOL_MAX' => '0']);
    }

    public function testAMinimumAboveTheMaximumIsRejected(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('DATABASE_POOL_MIN must be between 0 and DATABASE_POOL_MAX (4), got 5');

        AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db', 'DATABASE_POOL_MAX' => '4', 'DATABASE_POOL_MIN' => '5']);
    }

    public function testTheSchemeOfTheUrlChoosesMysql(): void
    {
        self::assertTrue(AircraftConfig::fromEnvironment(['DATABASE_URL' => 'mysql://u:p@db/app'])->usesMysql());
        self::assertTrue(AircraftConfig::fromEnvironment(['DATABASE_URL' => 'MariaDB://u:p@db/app'])->usesMysql());
        self::assertFalse(AircraftConfig::fromEnvironment(['DATABASE_URL' => 'postgresql://u@db/app'])->usesMysql());
        self::assertFalse(AircraftConfig::fromEnvironment(['DATABASE_URL' => 'host=db dbname=app'])->usesMysql());
    }

    public function testPersistentConnectionsAreForPostgresqlOnly(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('DATABASE_PERSISTENT=1 is for PostgreSQL');

        AircraftConfig::fromEnvironment(['DATABASE_URL' => 'mysql://u:p@db/app', 'DATABASE_PERSISTENT' => '1']);
    }
}
