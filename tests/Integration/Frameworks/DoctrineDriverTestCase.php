<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Frameworks;

use Bobbin\Async\Async;
use Bobbin\Async\Future;
use Bobbin\Tests\Support\Frameworks\ExampleApp;
use Doctrine\DBAL\ArrayParameterType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Exception\ForeignKeyConstraintViolationException;
use Doctrine\DBAL\Exception\NotNullConstraintViolationException;
use Doctrine\DBAL\Exception\SyntaxErrorException;
use Doctrine\DBAL\Exception\TableNotFoundException;
use Doctrine\DBAL\Exception\UniqueConstraintViolationException;
use Doctrine\DBAL\Types\Type;
use PHPUnit\Framework\TestCase;

/**
 * What Doctrine DBAL expects of any driver (its functional tests' areas: parameters,
 * affected rows and identities, transactions and savepoints, errors converted to its
 * exceptions, schema introspection), and what Bobbin's drivers add: statements of different
 * connections wait concurrently in one process. One subclass per database, as revolt runs
 * one contract per loop driver.
 */
abstract class DoctrineDriverTestCase extends TestCase
{
    protected Connection $connection;

    /** @param array<string, mixed> $extra connection parameters over the defaults */
    abstract protected static function connect(array $extra = []): Connection;

    /** dbal_parent (id generated, name unique) and dbal_child (id, parent_id referencing it). */
    abstract protected function createParentAndChild(): void;

    /** A statement that sleeps 0.3 s on the server. */
    abstract protected function sleepStatement(): string;

    public static function setUpBeforeClass(): void
    {
        if (!ExampleApp::Symfony->isInstalled()) {
            self::markTestSkipped('Doctrine DBAL comes with examples/symfony: run scripts/install-frameworks');
        }
        require_once ExampleApp::Symfony->directory() . '/vendor/autoload.php';
    }

    protected function setUp(): void
    {
        $this->connection = static::connect();
        $this->connection->executeStatement('DROP TABLE IF EXISTS dbal_child, dbal_parent, dbal_types');
    }

    protected function tearDown(): void
    {
        $this->connection->executeStatement('DROP TABLE IF EXISTS dbal_child, dbal_parent, dbal_types');
        $this->connection->close();
    }

    /**
     * Inserts one row of $values into dbal_types and reads it back through Doctrine's types:
     * every value must come back equal (the binary column's stream read whole).
     *
     * @param array<string, mixed> $values
     * @param array<string, string> $types column => Doctrine type name
     */
    protected function assertValuesComeBackAsWritten(array $values, array $types, string $binaryColumn): void
    {
        self::assertSame(1, $this->connection->insert('dbal_types', $values, $types));
        $row = $this->connection->fetchAssociative('SELECT * FROM dbal_types');
        self::assertIsArray($row);
        $platform = $this->connection->getDatabasePlatform();
        $read = [];
        foreach ($types as $column => $type) {
            $read[$column] = Type::getType($type)->convertToPHPValue($row[$column], $platform);
        }
        $read[$binaryColumn] = \is_resource($read[$binaryColumn]) ? \stream_get_contents($read[$binaryColumn]) : $read[$binaryColumn];

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
    }

    public function testAffectedRowsAndTheLastInsertedIdentity(): void
    {
        $this->createParentAndChild();
        $this->connection->insert('dbal_parent', ['name' => 'first']);
        $this->connection->insert('dbal_parent', ['name' => 'second']);

        self::assertSame(2, (int) $this->connection->lastInsertId());
        self::assertSame(2, $this->connection->executeStatement("UPDATE dbal_parent SET name = CONCAT(name, '!') WHERE id > ?", [0]));
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

    public function testErrorsBecomeDoctrinesExceptions(): void
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
    }

    public function testStatementsOfTwoConnectionsWaitAtTheSameTimeInOneProcess(): void
    {
        $other = static::connect();
        $sleep = $this->sleepStatement();
        $started = \microtime(true);

        Future::awaitAll([
            Async::run(fn () => $this->connection->fetchOne($sleep)),
            Async::run(static fn () => $other->fetchOne($sleep)),
        ]);
        $elapsed = \microtime(true) - $started;
        $other->close();

        self::assertLessThan(0.55, $elapsed, 'the second statement waited for the first');
    }
}
