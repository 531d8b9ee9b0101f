<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Bobbin\Async\Cancellation;
use Bobbin\Mysql\ConnectionPool;
use Bobbin\Mysql\PoolConfig;
use Bobbin\Mysql\Transaction;
use Bobbin\Tests\Support\Mysql\EmbeddedMysql;
use Closure;

/**
 * The MySQL client through its ConnectionPool, on the checkout's MariaDB; an InnoDB table of its
 * own holds the marked keys. A call that mentions a key carries it in a comment, so that the
 * process list shows which session runs it.
 */
final class MysqlUnderTest implements SqlClientUnderTest
{
    private readonly ConnectionPool $pool;
    private readonly string $table;

    public function __construct(int $poolSize, float $acquireTimeout)
    {
        $this->table = 'contract_' . \bin2hex(\random_bytes(5));
        EmbeddedMysql::client("CREATE TABLE {$this->table} (k varchar(64) PRIMARY KEY) ENGINE=InnoDB");
        $this->pool = new ConnectionPool(PoolConfig::fromUrl(EmbeddedMysql::url(), maxSize: $poolSize, acquireTimeout: $acquireTimeout));
    }

    public function write(string $key, ?Cancellation $cancellation = null): void
    {
        $this->pool->query("INSERT INTO {$this->table} VALUES (?)", [$key], $cancellation);
    }

    public function written(string $key): bool
    {
        return EmbeddedMysql::client("SELECT count(*) FROM {$this->table} WHERE k = '$key'") === '1';
    }

    public function echo(string $value, ?Cancellation $cancellation = null): string
    {
        return (string) $this->pool->query('SELECT ? AS v', [$value], $cancellation)->rows[0]['v'];
    }

    public function sleep(float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->query('SELECT SLEEP(?)', [$seconds], $cancellation);
    }

    public function slowWrite(string $key, float $seconds, ?Cancellation $cancellation = null): void
    {
        $this->pool->query("INSERT INTO {$this->table} SELECT ? FROM (SELECT SLEEP(?)) AS s /* $key */", [$key, $seconds], $cancellation);
    }

    public function endSessionsRunning(string $key): void
    {
        $ids = EmbeddedMysql::client("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%/* $key */%' AND ID <> CONNECTION_ID()");
        foreach (\array_filter(\explode("\n", $ids)) as $id) {
            EmbeddedMysql::client('KILL ' . (int) $id);
        }
    }

    public function transaction(Closure $work): mixed
    {
        return $this->pool->transaction(fn (Transaction $tx): mixed => $work(function (string $key) use ($tx): void {
            $tx->query("INSERT INTO {$this->table} VALUES (?)", [$key]);
        }));
    }

    public function close(): void
    {
        $this->pool->close();
        EmbeddedMysql::client("DROP TABLE IF EXISTS {$this->table}");
    }
}
