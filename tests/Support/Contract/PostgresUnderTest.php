<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Cancellation;
use Bobbin\Postgres\ConnectionPool;
use Bobbin\Postgres\PoolConfig;
use Bobbin\Postgres\Transaction;
use Bobbin\Tests\Support\EmbeddedPostgres;
use Closure;

/**
 * The PostgreSQL client through its ConnectionPool, on the checkout's cluster; a table of its own
 * holds the marked keys. A call that mentions a key carries it in a comment, so that
 * pg_stat_activity shows which backend runs it.
 */
final class PostgresUnderTest implements SqlClientUnderTest
{
    private readonly ConnectionPool $pool;
    private readonly string $table;

    public function __construct(int $poolSize, float $acquireTimeout)
    {
        $this->table = 'contract_' . \bin2hex(\random_bytes(5));
        EmbeddedPostgres::psql("CREATE TABLE {$this->table} (k text PRIMARY KEY)");
        $this->pool = new ConnectionPool(PoolConfig::fromConnectionString(EmbeddedPostgres::connectionString(), maxSize: $poolSize, acquireTimeout: $acquireTimeout));
    }

    public function write(string $key, ?Cancellation $cancellation = null): void
    {
        $this->pool->query("INSERT INTO {$this->table} VALUES (\$1)", [$key], $cancellation);
    }

    public function written(string $key): bool
    {
        return EmbeddedPostgres::psql("SELECT count(*) FROM {$this->table} WHERE k = '$key'") === '1';
    }

    public function echo(string $value, ?Cancellation $cancellation = null): string
    {
        return (string) $this->pool->queryValue('SELECT $1::text', [$value], $cancellation);
    }

    public function sleep(float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->query('SELECT pg_sleep($1)', [$seconds], $cancellation);
    }

    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->query("INSERT INTO {$this->table} SELECT \$1 FROM pg_sleep(\$2) /* $key */", [$key, $seconds], $cancellation);
    }

    public function endSessionsRunning(string $key): void
    {
        EmbeddedPostgres::psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%/* $key */%' AND pid <> pg_backend_pid()");
    }

    public function transaction(Closure $work): mixed
    {
        return $this->pool->transaction(fn (Transaction $tx): mixed => $work(function (string $key) use ($tx): void {
            $tx->query("INSERT INTO {$this->table} VALUES (\$1)", [$key]);
        }));
    }

    public function close(): void
    {
        $this->pool->close();
        EmbeddedPostgres::psql("DROP TABLE IF EXISTS {$this->table}");
    }
}
