<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Sql;

use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\Exception\TransactionException;
use Bobbin\Mysql\PoolConfig;
use Bobbin\Pool\PoolSettings;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;

/** Bobbin\Sql\Transaction's contract on MySQL/MariaDB. */
final class MysqlTransactionContractTest extends TransactionContractTestCase
{
    private ?ConnectionPool $pool = null;
    /** @var list<string> */
    private array $tables = [];

    protected function tearDown(): void
    {
        $this->pool?->close();
        if ($this->tables !== []) {
            EmbeddedMysql::client('DROP TABLE IF EXISTS ' . \implode(', ', $this->tables));
        }
    }

    protected function pool(): ConnectionPool
    {
        return $this->pool ??= new ConnectionPool(new PoolConfig(ConnectionConfig::fromUrl(EmbeddedMysql::url()), new PoolSettings(maxSize: 1)));
    }

    protected function createTable(): string
    {
        $name = 'sqltest_' . \bin2hex(\random_bytes(5));
        EmbeddedMysql::client("CREATE TABLE $name (id int PRIMARY KEY) ENGINE=InnoDB");
        $this->tables[] = $name;

        return $name;
    }

    protected function firstParameter(): string
    {
        return '?';
    }

    protected function committedIds(string $table): string
    {
        return EmbeddedMysql::client("SELECT id FROM $table ORDER BY id");
    }

    /**
     * Nothing: MariaDB has no deferred trigger, and what would hold a COMMIT back (a global read
     * lock) holds every session's on the shared test server. The cancellation then fires after
     * the COMMIT here, which the test still checks is not an error.
     */
    protected function slowCommit(string $table): void
    {
    }

    protected function transactionException(): string
    {
        return TransactionException::class;
    }
}
