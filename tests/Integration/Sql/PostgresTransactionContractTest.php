<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Sql;

use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\Exception\TransactionException;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Tests\Support\EmbeddedPostgres;

/** Bobbin\Sql\Transaction's contract on PostgreSQL. */
final class PostgresTransactionContractTest extends TransactionContractTestCase
{
    private ?ConnectionPool $pool = null;
    /** @var list<string> */
    private array $tables = [];
    /** @var list<string> */
    private array $functions = [];

    protected function tearDown(): void
    {
        $this->pool?->close();
        if ($this->tables !== []) {
            EmbeddedPostgres::psql('DROP TABLE IF EXISTS ' . \implode(', ', $this->tables));
        }
        if ($this->functions !== []) {
            EmbeddedPostgres::psql('DROP FUNCTION IF EXISTS ' . \implode(', ', $this->functions));
        }
    }

    protected function pool(): ConnectionPool
    {
        return $this->pool ??= new ConnectionPool(PoolConfig::fromConnectionString(EmbeddedPostgres::connectionString(), maxSize: 1));
    }

    protected function createTable(): string
    {
        $name = 'sqltest_' . \bin2hex(\random_bytes(5));
        EmbeddedPostgres::psql("CREATE TABLE $name (id int PRIMARY KEY)");
        $this->tables[] = $name;

        return $name;
    }

    protected function firstParameter(): string
    {
        return '$1';
    }

    protected function committedIds(string $table): string
    {
        return EmbeddedPostgres::psql("SELECT id FROM $table ORDER BY id");
    }

    /** A deferred constraint trigger runs at COMMIT: one that sleeps holds the COMMIT's answer back. */
    protected function slowCommit(string $table): void
    {
        EmbeddedPostgres::psql("CREATE FUNCTION {$table}_slow() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END \$\$;"
            . " CREATE CONSTRAINT TRIGGER {$table}_slow AFTER INSERT ON $table DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {$table}_slow()");
        $this->functions[] = "{$table}_slow()";
    }

    protected function transactionException(): string
    {
        return TransactionException::class;
    }
}
