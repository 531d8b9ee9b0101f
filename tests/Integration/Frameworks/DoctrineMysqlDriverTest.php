<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Frameworks\Doctrine\Mysql\Driver;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception\ConnectionException;
use Doctrine\DBAL\ParameterType;
use Doctrine\DBAL\Platforms\MariaDBPlatform;
use Doctrine\DBAL\Types\Types;

/**
 * The DBAL driver contract (DoctrineDriverTestCase) on the MySQL driver against the embedded
 * MariaDB, and what is MySQL's own: the MariaDB platform by server version, every common type
 * both ways, positional binding, backslash-escaped quoting.
 */
final class DoctrineMysqlDriverTest extends DoctrineDriverTestCase
{
    /** @param array<string, mixed> $extra */
    protected static function connect(array $extra = []): Connection
    {
        return DriverManager::getConnection($extra + ['driverClass' => Driver::class, 'url' => EmbeddedMysql::url()]);
    }

    protected function sleepStatement(): string
    {
        return 'SELECT SLEEP(0.3)';
    }

    protected function createParentAndChild(): void
    {
        $this->connection->executeStatement('CREATE TABLE dbal_parent (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50) NOT NULL UNIQUE) ENGINE=InnoDB');
        $this->connection->executeStatement('CREATE TABLE dbal_child (id INT PRIMARY KEY, parent_id INT NOT NULL, FOREIGN KEY (parent_id) REFERENCES dbal_parent (id)) ENGINE=InnoDB');
    }

    public function testItConnectsWithTheMariaDbPlatformAndServerVersion(): void
    {
        self::assertInstanceOf(MariaDBPlatform::class, $this->connection->getDatabasePlatform());
        self::assertMatchesRegularExpression('/^\d+\.\d+\.\d+.*MariaDB/i', $this->connection->getServerVersion());
        self::assertSame(1, (int) $this->connection->fetchOne('SELECT 1'));
    }

    public function testAnUnreachableServerIsAConnectionException(): void
    {
        $this->expectException(ConnectionException::class);
        self::connect(['url' => null, 'host' => '127.0.0.1', 'port' => 1, 'user' => 'nobody'])->fetchOne('SELECT 1');
    }

    public function testValuesOfEveryCommonTypeGoInAndComeBackAsDoctrineTypesConvertThem(): void
    {
        $this->connection->executeStatement('CREATE TABLE dbal_types (
            i INT, b BIGINT, s SMALLINT, v VARCHAR(20), t TEXT, flag TINYINT(1), f DOUBLE,
            d DECIMAL(10, 2), day DATE, at DATETIME, j JSON, bin LONGBLOB, empty TEXT) CHARACTER SET utf8mb4');
        $values = [
            'i' => 42, 'b' => 9_007_199_254_740_993, 's' => -7, 'v' => 'ünïcode ☃', 't' => "line\nbreak 'quoted' \\ back",
            'flag' => false, 'f' => 1.5, 'd' => '12345678.90', 'day' => new \DateTimeImmutable('2026-11-25'),
            'at' => new \DateTimeImmutable('2026-11-25 10:11:12'), 'j' => ['a' => [1, 2], 'b' => null],
            'bin' => "\x00\xff binary \x00", 'empty' => null,
        ];
        $types = [
            'i' => Types::INTEGER, 'b' => Types::BIGINT, 's' => Types::SMALLINT, 'v' => Types::STRING, 't' => Types::TEXT,
            'flag' => Types::BOOLEAN, 'f' => Types::FLOAT, 'd' => Types::DECIMAL, 'day' => Types::DATE_IMMUTABLE,
            'at' => Types::DATETIME_IMMUTABLE, 'j' => Types::JSON, 'bin' => Types::BLOB, 'empty' => Types::TEXT,
        ];

        $this->assertValuesComeBackAsWritten($values, $types, binaryColumn: 'bin');
    }

    public function testAPreparedStatementBindsByPositionAndQuotedStringsComeBackAsTheyWere(): void
    {
        $this->createParentAndChild();
        foreach (['a', 'b', 'c'] as $name) {
            $this->connection->insert('dbal_parent', ['name' => $name]);
        }

        $statement = $this->connection->prepare('SELECT count(*) FROM dbal_parent WHERE id > ?');
        $statement->bindValue(1, 1, ParameterType::INTEGER);
        self::assertSame(2, (int) $statement->executeQuery()->fetchOne());
        $tricky = "it's \"quoted\" \\ \0 \x1a\n";
        self::assertSame($tricky, $this->connection->fetchOne('SELECT ' . $this->connection->quote($tricky)));
    }
}
