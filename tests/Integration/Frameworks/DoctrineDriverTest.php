<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Frameworks\Doctrine\Driver;
use Bobbin\Tests\Support\EmbeddedPostgres;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception\ConnectionException;
use Doctrine\DBAL\ParameterType;
use Doctrine\DBAL\Platforms\PostgreSQLPlatform;
use Doctrine\DBAL\Types\Types;

/**
 * The DBAL driver contract (DoctrineDriverTestCase) on the PostgreSQL driver against the embedded
 * PostgreSQL, and what is PostgreSQL's own: its platform, every common type both ways (dates
 * with and without zone, bytea), parameters bound by name, standard-conforming quoting.
 */
final class DoctrineDriverTest extends DoctrineDriverTestCase
{
    /** @param array<string, mixed> $extra */
    protected static function connect(array $extra = []): Connection
    {
        \preg_match_all("/(\\w+)=(\\S+)/", EmbeddedPostgres::connectionString(), $m, \PREG_SET_ORDER);
        $params = [];
        foreach ($m as [, $key, $value]) {
            $params[$key] = $value;
        }

        return DriverManager::getConnection($extra + [
            'driverClass' => Driver::class,
            'host' => $params['host'],
            'port' => (int) $params['port'],
            'dbname' => $params['dbname'],
            'user' => $params['user'],
        ]);
    }

    protected function sleepStatement(): string
    {
        return 'SELECT pg_sleep(0.3)';
    }

    protected function createParentAndChild(): void
    {
        $this->connection->executeStatement('CREATE TABLE dbal_parent (id SERIAL PRIMARY KEY, name VARCHAR(50) NOT NULL UNIQUE)');
        $this->connection->executeStatement('CREATE TABLE dbal_child (id INT PRIMARY KEY, parent_id INT NOT NULL REFERENCES dbal_parent (id))');
    }

    public function testItConnectsWithPostgresPlatformAndServerVersion(): void
    {
        self::assertInstanceOf(PostgreSQLPlatform::class, $this->connection->getDatabasePlatform());
        self::assertMatchesRegularExpression('/^\d+(\.\d+)?/', $this->connection->getServerVersion());
        self::assertSame(1, (int) $this->connection->fetchOne('SELECT 1'));
    }

    public function testABadDatabaseIsAConnectionException(): void
    {
        $broken = self::connect(['host' => '127.0.0.1', 'port' => 1]);

        $this->expectException(ConnectionException::class);
        $broken->fetchOne('SELECT 1');
    }

    public function testValuesOfEveryCommonTypeGoInAndComeBackAsDoctrineTypesConvertThem(): void
    {
        $this->connection->executeStatement('CREATE TABLE dbal_types (
            i INT, b BIGINT, s SMALLINT, v VARCHAR(20), t TEXT, flag BOOLEAN, f DOUBLE PRECISION,
            d NUMERIC(10, 2), day DATE, at TIMESTAMP(0) WITHOUT TIME ZONE, attz TIMESTAMP(0) WITH TIME ZONE,
            j JSON, blob BYTEA, empty TEXT)');
        $values = [
            'i' => 42, 'b' => 9_007_199_254_740_993, 's' => -7, 'v' => 'ünïcode ☃', 't' => "line\nbreak 'quoted' \\ back",
            'flag' => false, 'f' => 1.5, 'd' => '12345678.90', 'day' => new \DateTimeImmutable('2026-11-25'),
            'at' => new \DateTimeImmutable('2026-11-25 10:11:12'), 'attz' => new \DateTimeImmutable('2026-11-25 10:11:12+02:00'),
            'j' => ['a' => [1, 2], 'b' => null], 'blob' => "\x00\xff binary \x00", 'empty' => null,
        ];
        $types = [
            'i' => Types::INTEGER, 'b' => Types::BIGINT, 's' => Types::SMALLINT, 'v' => Types::STRING, 't' => Types::TEXT,
            'flag' => Types::BOOLEAN, 'f' => Types::FLOAT, 'd' => Types::DECIMAL, 'day' => Types::DATE_IMMUTABLE,
            'at' => Types::DATETIME_IMMUTABLE, 'attz' => Types::DATETIMETZ_IMMUTABLE, 'j' => Types::JSON,
            'blob' => Types::BLOB, 'empty' => Types::TEXT,
        ];

        $this->assertValuesComeBackAsWritten($values, $types, binaryColumn: 'blob');
    }

    public function testAPreparedStatementBindsByNameAndStringsAreQuotedTheStandardWay(): void
    {
        $this->createParentAndChild();
        foreach (['a', 'b', 'c'] as $name) {
            $this->connection->insert('dbal_parent', ['name' => $name]);
        }

        $statement = $this->connection->prepare('SELECT count(*) FROM dbal_parent WHERE id > :min');
        $statement->bindValue('min', 1, ParameterType::INTEGER);
        self::assertSame(2, (int) $statement->executeQuery()->fetchOne());
        self::assertSame("'it''s'", $this->connection->quote("it's"));
    }
}
