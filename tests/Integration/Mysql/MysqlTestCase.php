<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Mysql;

use Bobbin\Mysql\Connection;
use Bobbin\Mysql\ConnectionConfig;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use PHPUnit\Framework\TestCase;

/** Shared set-up of the MySQL client tests: the embedded MariaDB, own tables, clean-up. */
abstract class MysqlTestCase extends TestCase
{
    /** @var list<string> */
    private array $tables = [];
    /** @var list<Connection|ConnectionPool> */
    private array $resources = [];

    protected function tearDown(): void
    {
        foreach ($this->resources as $resource) {
            $resource->close();
        }
        $this->resources = [];
        if ($this->tables !== []) {
            EmbeddedMysql::client('SET foreign_key_checks = 0; DROP TABLE IF EXISTS ' . \implode(', ', \array_reverse($this->tables)));
            $this->tables = [];
        }
    }

    protected static function config(mixed ...$changes): ConnectionConfig
    {
        return ConnectionConfig::fromUrl(EmbeddedMysql::url())->with(...$changes);
    }

    protected function connect(?ConnectionConfig $config = null): Connection
    {
        $connection = Connection::connect($config ?? self::config());
        $this->resources[] = $connection;

        return $connection;
    }

    /** @param mixed ...$options named arguments of PoolConfig::fromUrl() */
    protected function pool(mixed ...$options): ConnectionPool
    {
        $pool = new ConnectionPool(PoolConfig::fromUrl(EmbeddedMysql::url(), ...($options + ['maxSize' => 10, 'acquireTimeout' => 10.0])));
        $this->resources[] = $pool;

        return $pool;
    }

    /** Creates an InnoDB table dropped after the test; returns its unique name. */
    protected function createTable(string $columns): string
    {
        $name = 'mytest_' . \bin2hex(\random_bytes(5));
        EmbeddedMysql::client(\sprintf('CREATE TABLE %s (%s) ENGINE=InnoDB', $name, $columns));
        $this->tables[] = $name;

        return $name;
    }

    /** Sessions of the server running a statement like $pattern now (seen from outside the code under test). */
    protected static function sessionsRunning(string $pattern): int
    {
        return (int) EmbeddedMysql::client(\sprintf(
            "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND IN ('Query', 'Execute') AND INFO LIKE %s AND ID <> CONNECTION_ID()",
            "'" . \str_replace("'", "''", $pattern) . "'",
        ));
    }
}
