<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Frameworks\Doctrine\Mysql\Driver;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use Doctrine\DBAL\ArrayParameterType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception\ConnectionException;
use Doctrine\DBAL\Exception\ForeignKeyConstraintViolationException;
use Doctrine\DBAL\Exception\NotNullConstraintViolationException;
use Doctrine\DBAL\Exception\SyntaxErrorException;
use Doctrine\DBAL\Exception\TableNotFoundException;
use Doctrine\DBAL\Exception\UniqueConstraintViolationException;
use Doctrine\DBAL\ParameterType;
use Doctrine\DBAL\Platforms\AbstractMySQLPlatform;
use Doctrine\DBAL\Platforms\MariaDBPlatform;
use Doctrine\DBAL\Types\Type;
use Doctrine\DBAL\Types\Types;
use PHPUnit\Framework\TestCase;

/**
 * What Doctrine DBAL expects of a driver (connecting, types both ways, parameters, transactions
 * and savepoints, errors converted by error number, schema introspection), held by Bobbin's
 * MySQL driver against the embedded MariaDB; and what it adds: statements of different
 * connections wait concurrently in one process.
 */
final class DoctrineMysqlDriverTest extends TestCase
{
    private Connection $connection;

    public static function setUpBeforeClass(): void
    {
        if (!ExampleApp::Symfony->isInstalled()) {
            self::markTestSkipped('Doctrine DBAL comes with examples/symfony: run scripts/install-frameworks');
        }
        require_once ExampleApp::Symfony->directory() . '/vendor/autoload.php';
    }

    protected function setUp(): void
    {
        $this->connection = self::connect();
        $this->connection->executeStatement('DROP TABLE IF EXISTS dbal_child, dbal_parent, dbal_types');
    }

    protected function tearDown(): void
    {
        $this->connection->executeStatement('DROP TABLE IF EXISTS dbal_child, dbal_parent, dbal_types');
        $this->connection->close();
    }

    /** @param array<string, mixed> $extra */
    private static function connect(array $extra = []): Connection
    {
        return DriverManager::getConnection($extra + ['driverClass' => Driver::class, 'url' => EmbeddedMysql::url()]);
    }

    private function createParentAndChild(): void
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

        self::assertSame(1, $this->connection->insert('dbal_types', $values, $types));
        $row = $this->connection->fetchAssociative('SELECT * FROM dbal_types');
        self::assertIsArray($row);
        $platform = $this->connection->getDatabasePlatform();
        $read = [];
        foreach ($types as $column => $type) {
            $read[$column] = Type::getType($type)->convertToPHPValue($row[$column], $platform);
        }
        $read['bin'] = \is_resource($read['bin']) ? \stream_get_contents($read['bin']) : $read['bin'];

        self::assertEquals($values, $read);
        self::assertSame(9_007_199_254_740_993, (int) $row['b']);
    }

    public function testPositionalNamedAndListParametersBind(): void
    {
        $this->createParentAndChild();
        foreach (['a', 'b', 'c'] as $name) {
            $this->connection->insert('dbal_parent', ['name' => $name]);
        }

        self::assertSame('b', $this->connection->fetchOne('SELECT name FROM dbal_parent WHERE name = ?', ['b']));
        self::assertSame('c', $this->connection->fetchOne('SELECT name FROM dbal_parent WHERE name = :n AND :n <> :other', ['n' => 'c', 'other' => 'x']));
        self::assertSame(['a', 'c'], $this->connection->fetchFirstColumn(
            'SELECT name FROM dbal_parent WHERE name IN (?) ORDER BY name',
            [['a', 'c']],
            [ArrayParameterType::STRING],
        ));
        $statement = $this->connection->prepare('SELECT count(*) FROM dbal_parent WHERE id > ?');
        $statement->bindValue(1, 1, ParameterType::INTEGER);
        self::assertSame(2, (int) $statement->executeQuery()->fetchOne());
        $tricky = "it's \"quoted\" \\ \0 \x1a\n";
        self::assertSame($tricky, $this->connection->fetchOne('SELECT ' . $this->connection->quote($tricky)));
    }

    public function testAffectedRowsAndTheLastInsertedIdentity(): void
    {
        $this->createParentAndChild();
        $this->connection->insert('dbal_parent', ['name' => 'first']);
        $this->connection->insert('dbal_parent', ['name' => 'second']);

        self::assertSame(2, (int) $this->connection->lastInsertId());
        self::assertSame(2, $this->connection->executeStatement('UPDATE dbal_parent SET name = CONCAT(name, ?)', ['!']));
        self::assertSame(0, $this->connection->executeStatement('DELETE FROM dbal_parent WHERE id > ?', [99]));
    }

    public function testTransactionsCommitRollBackAndNestAsSavepoints(): void
    {
        $this->createParentAndChild();

        $this->connection->transactional(function (Connection $c): void {
            $c->insert('dbal_parent', ['name' => 'kept']);
        });
        $this->connection->beginTransaction();
        $this->connection->insert('dbal_parent', ['name' => 'rolled back']);
        self::assertTrue($this->connection->isTransactionActive());
        $this->connection->rollBack();
        $this->connection->beginTransaction();
        $this->connection->insert('dbal_parent', ['name' => 'outer']);
        $this->connection->beginTransaction(); // a savepoint
        $this->connection->insert('dbal_parent', ['name' => 'inner']);
        $this->connection->rollBack();          // to the savepoint
        $this->connection->commit();

        self::assertSame(['kept', 'outer'], $this->connection->fetchFirstColumn('SELECT name FROM dbal_parent ORDER BY id'));
        self::assertFalse($this->connection->isTransactionActive());
    }

    public function testErrorsBecomeDoctrinesExceptionsByErrorNumber(): void
    {
        $this->createParentAndChild();
        $this->connection->insert('dbal_parent', ['name' => 'taken']);
        $cases = [
            UniqueConstraintViolationException::class => fn () => $this->connection->insert('dbal_parent', ['name' => 'taken']),
            ForeignKeyConstraintViolationException::class => fn () => $this->connection->insert('dbal_child', ['id' => 1, 'parent_id' => 99]),
            NotNullConstraintViolationException::class => fn () => $this->connection->executeStatement('INSERT INTO dbal_parent (name) VALUES (NULL)'),
            TableNotFoundException::class => fn () => $this->connection->fetchOne('SELECT 1 FROM dbal_missing'),
            SyntaxErrorException::class => fn () => $this->connection->fetchOne('SELEC 1'),
        ];
        foreach ($cases as $expected => $statement) {
            try {
                $statement();
                self::fail("no $expected");
            } catch (\Throwable $error) {
                self::assertInstanceOf($expected, $error);
            }
        }
        self::assertSame(1, (int) $this->connection->fetchOne('SELECT count(*) FROM dbal_parent'), 'the connection goes on after errors');
    }

    public function testTheSchemaManagerIntrospectsTables(): void
    {
        $this->createParentAndChild();

        $tables = $this->connection->createSchemaManager()->listTableNames();
        $columns = \array_keys($this->connection->createSchemaManager()->listTableColumns('dbal_child'));

        self::assertContains('dbal_parent', $tables);
        self::assertSame(['id', 'parent_id'], $columns);
        self::assertInstanceOf(AbstractMySQLPlatform::class, $this->connection->getDatabasePlatform());
    }

    public function testStatementsOfTwoConnectionsWaitAtTheSameTimeInOneProcess(): void
    {
        $other = self::connect();
        $started = \microtime(true);

        Future::awaitAll([
            Async::run(fn () => $this->connection->fetchOne('SELECT SLEEP(0.3)')),
            Async::run(static fn () => $other->fetchOne('SELECT SLEEP(0.3)')),
        ]);
        $elapsed = \microtime(true) - $started;
        $other->close();

        self::assertLessThan(0.55, $elapsed, 'the second statement waited for the first');
    }
}
