<?php

declare(strict_types=1);

namespace Bobbin\Tests\Integration\Postgres;

use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Tests\Support\EmbeddedPostgres;
use PHPUnit\Framework\TestCase;

/** Shared set-up of the PostgreSQL client tests: the embedded cluster, own tables, clean-up. */
abstract class PostgresTestCase extends TestCase
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
            EmbeddedPostgres::psql('DROP TABLE IF EXISTS ' . \implode(', ', \array_reverse($this->tables)) . ' CASCADE');
            $this->tables = [];
        }
    }

    protected static function dsn(): string
    {
        return EmbeddedPostgres::connectionString();
    }

    protected function connect(?ConnectionConfig $config = null): Connection
    {
        $connection = Connection::connect($config ?? new ConnectionConfig(self::dsn()));
        $this->resources[] = $connection;

        return $connection;
    }

    /** @param mixed ...$options named arguments of PoolConfig::fromConnectionString() */
    protected function pool(mixed ...$options): ConnectionPool
    {
        $pool = new ConnectionPool(PoolConfig::fromConnectionString(self::dsn(), ...($options + ['maxSize' => 10, 'acquireTimeout' => 10.0])));
        $this->resources[] = $pool;

        return $pool;
    }

    /** Creates a table dropped after the test; returns its unique name. */
    protected function createTable(string $columns): string
    {
        $name = 'pgtest_' . \bin2hex(\random_bytes(5));
        EmbeddedPostgres::psql(\sprintf('CREATE TABLE %s (%s)', $name, $columns));
        $this->tables[] = $name;

        return $name;
    }

    /**
     * Starts "scripts/pg $command" in a child process that closes every inherited descriptor
     * above stderr first: a postmaster started from here would otherwise keep PHPUnit's pipes
     * open and a caller reading PHPUnit's output (`phpunit | tail`) would never see it end.
     *
     * @return resource the process, for proc_get_status()/proc_close()
     */
    protected static function startClusterCommand(string $command): mixed
    {
        $shell = 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$0" "$1"';
        $process = \proc_open(
            ['/bin/bash', '-c', $shell, \dirname(__DIR__, 3) . '/scripts/pg', $command],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($process);

        return $process;
    }

    /** Runs "scripts/pg $command" to the end (see startClusterCommand()). */
    protected static function runClusterCommand(string $command): void
    {
        $process = self::startClusterCommand($command);
        while (\proc_get_status($process)['running']) {
            \Bobbin\Async\Async::delay(0.05);
        }
        \proc_close($process);
    }

    /** Backend pids running $pattern right now (seen from outside the code under test). */
    protected static function backendsRunning(string $pattern): int
    {
        return (int) EmbeddedPostgres::psql(\sprintf(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE %s AND pid <> pg_backend_pid()",
            "'" . \str_replace("'", "''", $pattern) . "'",
        ));
    }
}
