<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Pool\Pool;
use Bobbin\Pool\PoolClosedException;
use Bobbin\Pool\PoolStatistics;
use Bobbin\Pool\PoolTimeoutException as SharedPoolTimeoutException;
use Bobbin\Tarantool\Exception\PoolTimeoutException;
use Bobbin\Tarantool\Exception\TarantoolException;
use Bobbin\Tarantool\Internal\PoolConnector;
use Closure;

/**
 * Tarantool connections on the shared Pool (src/Pool), each lent to one caller per request.
 *
 * One Connection already carries any number of concurrent requests, so most applications
 * need no pool: share one Connection. The pool is for callers that want requests spread over
 * several sockets (several Tarantool iproto threads, a slow big answer that should not delay
 * small ones), for statistics and metrics like the other clients' pools, and for exclusive use
 * (acquire()/release()). maxSize bounds the requests in flight through the pool.
 */
final class ConnectionPool implements Executor
{
    use OwnsResources;

    /** @var Pool<Connection> */
    private readonly Pool $pool;

    public function __construct(private readonly PoolConfig $config)
    {
        $this->pool = new Pool(new PoolConnector($config->connection), $config->pool);
    }

    public function select(string|int $space, mixed $key = [], string|int $index = 0, int $limit = self::NO_LIMIT, int $offset = 0, Iterator $iterator = Iterator::Eq, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->with(static fn (Connection $c): array => $c->select($space, $key, $index, $limit, $offset, $iterator, $idempotent, $cancellation), $cancellation);
    }

    public function insert(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->with(static fn (Connection $c): array => $c->insert($space, $tuple, $idempotent, $cancellation), $cancellation);
    }

    public function replace(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->with(static fn (Connection $c): array => $c->replace($space, $tuple, $idempotent, $cancellation), $cancellation);
    }

    public function update(string|int $space, mixed $key, array $operations, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        return $this->with(static fn (Connection $c): ?array => $c->update($space, $key, $operations, $index, $idempotent, $cancellation), $cancellation);
    }

    public function upsert(string|int $space, array $tuple, array $operations, bool $idempotent = false, ?Cancellation $cancellation = null): void
    {
        $this->with(static fn (Connection $c) => $c->upsert($space, $tuple, $operations, $idempotent, $cancellation), $cancellation);
    }

    public function delete(string|int $space, mixed $key, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        return $this->with(static fn (Connection $c): ?array => $c->delete($space, $key, $index, $idempotent, $cancellation), $cancellation);
    }

    public function call(string $function, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->with(static fn (Connection $c): array => $c->call($function, $arguments, $onPush, $idempotent, $cancellation), $cancellation);
    }

    public function eval(string $expression, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->with(static fn (Connection $c): array => $c->eval($expression, $arguments, $onPush, $idempotent, $cancellation), $cancellation);
    }

    /**
     * A PreparedStatement from this pool runs on whichever connection is lent: one that has
     * not prepared it prepares it first.
     */
    public function execute(string|PreparedStatement $sql, array $parameters = [], bool $idempotent = false, ?Cancellation $cancellation = null): SqlResult
    {
        return $this->with(static fn (Connection $c): SqlResult => $c->execute($sql, $parameters, $idempotent, $cancellation), $cancellation);
    }

    public function prepare(string $sql, ?Cancellation $cancellation = null): PreparedStatement
    {
        return $this->with(static fn (Connection $c): PreparedStatement => $c->prepare($sql, $cancellation), $cancellation);
    }

    /** Unprepares it on the connection lent now (others drop theirs when they close). */
    public function unprepare(PreparedStatement $statement, ?Cancellation $cancellation = null): void
    {
        $this->with(static fn (Connection $c) => $c->unprepare($statement, $cancellation), $cancellation);
    }

    public function ping(?Cancellation $cancellation = null): void
    {
        $this->with(static fn (Connection $c) => $c->ping($cancellation), $cancellation);
    }

    /**
     * Connection::transaction() on a pooled connection, held for the callback.
     *
     * @template T
     * @param Closure(Transaction): T $work
     * @return T
     */
    public function transaction(Closure $work, ?float $timeout = null, ?Cancellation $cancellation = null): mixed
    {
        return $this->with(static fn (Connection $c): mixed => $c->transaction($work, $timeout, $cancellation), $cancellation);
    }

    /**
     * Takes a connection for exclusive use; give it back with release().
     *
     * @throws PoolTimeoutException|TarantoolException|\Bobbin\Async\CancelledException
     */
    public function acquire(?Cancellation $cancellation = null): Connection
    {
        try {
            return $this->pool->acquire($cancellation);
        } catch (SharedPoolTimeoutException $e) {
            throw new PoolTimeoutException($e->getMessage(), 0, null, $e);
        } catch (PoolClosedException $e) {
            throw new TarantoolException($e->getMessage(), 0, null, $e);
        }
    }

    public function release(Connection $connection): void
    {
        $this->pool->release($connection);
    }

    /** Opens connections up to minSize now instead of on first use. */
    public function warmUp(?Cancellation $cancellation = null): void
    {
        $this->pool->warmUp($cancellation);
    }

    public function statistics(): PoolStatistics
    {
        return $this->pool->statistics();
    }

    public function config(): PoolConfig
    {
        return $this->config;
    }

    /** Closes idle connections now and the others as they come back; waiting callers get an exception. */
    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * @template T
     * @param Closure(Connection): T $work
     * @return T
     */
    private function with(Closure $work, ?Cancellation $cancellation): mixed
    {
        $connection = $this->acquire($cancellation);
        try {
            return $work($connection);
        } finally {
            $this->pool->release($connection);
        }
    }
}
