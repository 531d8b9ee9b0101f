<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\DeferredFuture;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\Timer;
use Bobbin\Postgres\Exception\PoolTimeoutException;
use Bobbin\Postgres\Exception\PostgresException;
use Closure;

/**
 * Connections shared by the fibers of one process. Grows lazily up to maxSize; callers beyond
 * that wait first come, first served, each for at most acquireTimeout. A connection is handed out
 * only when it is idle and alive: broken ones are discarded and replaced, one whose statement was
 * abandoned comes back only once the server has finished with it.
 */
final class ConnectionPool implements Executor
{
    use ExecutesQueries;

    /** @var list<Connection> most recently used last: reuse stays on warm connections, the rest can idle out */
    private array $idle = [];
    /** @var array<int, DeferredFuture<Connection>> in arrival order */
    private array $waiters = [];
    private int $nextWaiterId = 0;
    /** Connections open or being opened. */
    private int $open = 0;
    private int $acquisitions = 0;
    private int $timeouts = 0;
    private int $discarded = 0;
    private float $totalWaitTime = 0.0;
    private float $maxWaitTime = 0.0;
    private bool $closed = false;
    private ?Timer $sweeper = null;
    /** @var Closure(int): void */
    private readonly Closure $canceller;

    public function __construct(private readonly PoolConfig $config)
    {
        $this->canceller = $this->cancelBackend(...);
    }

    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        $connection = $this->acquire($cancellation);
        try {
            return $connection->query($sql, $params, $cancellation);
        } finally {
            $this->release($connection);
        }
    }

    public function transaction(Closure $work, ?IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->acquire($cancellation);
        try {
            return Transaction::run($connection, $work, $isolation, $cancellation);
        } finally {
            $this->release($connection);
        }
    }

    /**
     * Opens a dedicated connection (outside the pool's count) subscribed to $channel.
     */
    public function listen(string $channel, int $capacity = 1024): Listener
    {
        return Connection::connect($this->config->connection)->listen($channel, $capacity);
    }

    /**
     * Takes a connection for exclusive use; give it back with release() (query() and
     * transaction() do both).
     *
     * @throws PoolTimeoutException|CancelledException|PostgresException
     */
    public function acquire(?Cancellation $cancellation = null): Connection
    {
        if ($this->closed) {
            throw new PostgresException('The connection pool is closed');
        }
        $this->acquisitions++;
        while ($this->idle !== []) {
            $connection = \array_pop($this->idle);
            if ($this->isReusable($connection)) {
                return $connection;
            }
            $this->discard($connection);
        }
        if ($this->open < $this->config->maxSize) {
            return $this->openConnection($cancellation);
        }

        return $this->awaitConnection($cancellation);
    }

    public function release(Connection $connection): void
    {
        if ($connection->state() === ConnectionState::Draining) {
            // Its abandoned statement is still being cancelled: it comes back once the server is done.
            Async::run(function () use ($connection): void {
                try {
                    $connection->awaitIdle();
                } catch (\Throwable) {
                    // Broken while draining: release() discards it.
                }
                $this->release($connection);
            });

            return;
        }
        if ($this->closed || $connection->isClosed() || $connection->inTransaction() || $this->isExpired($connection, \microtime(true))) {
            $this->discard($connection);

            return;
        }
        $first = \array_key_first($this->waiters);
        if ($first !== null) {
            $waiter = $this->waiters[$first];
            unset($this->waiters[$first]);
            $waiter->complete($connection);

            return;
        }
        $this->idle[] = $connection;
    }

    /** Opens connections up to minSize now instead of on first use. */
    public function warmUp(?Cancellation $cancellation = null): void
    {
        $opened = [];
        try {
            while ($this->open < $this->config->minSize) {
                $opened[] = $this->openConnection($cancellation);
            }
        } finally {
            foreach ($opened as $connection) {
                $this->release($connection);
            }
        }
    }

    public function statistics(): PoolStatistics
    {
        $idle = \count($this->idle);

        return new PoolStatistics(
            $this->config->maxSize,
            $this->open,
            $idle,
            $this->open - $idle,
            \count($this->waiters),
            $this->acquisitions,
            $this->timeouts,
            $this->discarded,
            $this->totalWaitTime,
            $this->maxWaitTime,
        );
    }

    public function config(): PoolConfig
    {
        return $this->config;
    }

    /**
     * Closes idle connections now and the others as they come back; waiting callers get an
     * exception.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->sweeper?->cancel();
        $this->sweeper = null;
        $idle = $this->idle;
        $this->idle = [];
        foreach ($idle as $connection) {
            $this->discard($connection);
        }
        $waiters = $this->waiters;
        $this->waiters = [];
        foreach ($waiters as $waiter) {
            $waiter->fail(new PostgresException('The connection pool was closed while waiting for a connection'));
        }
    }

    private function openConnection(?Cancellation $cancellation): Connection
    {
        $this->open++;
        try {
            $connection = Connection::connect($this->config->connection, $cancellation);
        } catch (\Throwable $e) {
            $this->open--;
            throw $e;
        }
        $connection->setCanceller($this->canceller);
        $this->sweeper ??= Timer::every(
            \max(0.25, \min($this->config->idleTimeout, $this->config->maxLifetime) / 4),
            $this->sweep(...),
        )->unreference();

        return $connection;
    }

    private function awaitConnection(?Cancellation $cancellation): Connection
    {
        if (\count($this->waiters) >= $this->config->maxWaiters) {
            $this->timeouts++;
            throw new PoolTimeoutException(\sprintf(
                'All %d connections of the pool are in use and %d callers are already waiting (the most allowed)',
                $this->config->maxSize,
                \count($this->waiters),
            ));
        }
        /** @var DeferredFuture<Connection> $waiter */
        $waiter = new DeferredFuture();
        $id = $this->nextWaiterId++;
        $this->waiters[$id] = $waiter;
        $timeout = new TimeoutCancellation($this->config->acquireTimeout);
        $started = \microtime(true);
        try {
            return $waiter->future()->await($cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout));
        } catch (CancelledException $e) {
            unset($this->waiters[$id]);
            $this->timeouts++;
            if ($waiter->isComplete()) {
                // A connection was handed over in the same tick the wait ended: give it back.
                try {
                    $this->release($waiter->future()->await());
                } catch (\Throwable) {
                    // The hand-over was a failure; nothing to give back.
                }
            }
            if ($cancellation !== null && $cancellation->isRequested()) {
                throw $e;
            }
            throw new PoolTimeoutException(\sprintf(
                'No connection became free within %.3f s: all %d connections of the pool are in use (%d callers waiting)',
                $this->config->acquireTimeout,
                $this->config->maxSize,
                \count($this->waiters),
            ));
        } finally {
            $timeout->dispose();
            $waited = \microtime(true) - $started;
            $this->totalWaitTime += $waited;
            $this->maxWaitTime = \max($this->maxWaitTime, $waited);
        }
    }

    private function isReusable(Connection $connection): bool
    {
        $now = \microtime(true);
        // Every checkout asks whether the server closed the session (a zero-timeout poll, no
        // round trip): a backend terminated even moments after its last statement is replaced
        // before a statement is sent on it, not answered with ConnectionLostException.
        if ($this->isExpired($connection, $now) || !$connection->isAlive()) {
            return false;
        }
        if ($now - $connection->lastUsedAt() <= $this->config->checkAfterIdle) {
            return true;
        }
        try {
            $connection->command('SELECT 1');

            return true;
        } catch (\Throwable) {
            return false;
        }
    }

    private function isExpired(Connection $connection, float $now): bool
    {
        return $now - $connection->openedAt() > $this->config->maxLifetime;
    }

    private function discard(Connection $connection): void
    {
        $connection->close();
        $this->open--;
        $this->discarded++;
        $this->replaceForWaiter();
    }

    /**
     * A connection went away while callers wait: open a replacement for the longest waiter. If
     * that fails (server down) the waiter gets the connect error now instead of a timeout later.
     */
    private function replaceForWaiter(): void
    {
        if ($this->closed || $this->waiters === [] || $this->open >= $this->config->maxSize) {
            return;
        }
        $this->open++;
        Async::run(function (): void {
            try {
                $connection = Connection::connect($this->config->connection);
            } catch (\Throwable $e) {
                $this->open--;
                $first = \array_key_first($this->waiters);
                if ($first !== null) {
                    $waiter = $this->waiters[$first];
                    unset($this->waiters[$first]);
                    $waiter->fail($e);
                }

                return;
            }
            $connection->setCanceller($this->canceller);
            $this->release($connection);
        });
    }

    private function sweep(): void
    {
        $now = \microtime(true);
        $kept = [];
        $surplus = $this->open - $this->config->minSize;
        // Oldest-used first, so the least useful connections go.
        foreach ($this->idle as $connection) {
            $idleTooLong = $surplus > 0 && $now - $connection->lastUsedAt() > $this->config->idleTimeout;
            if ($idleTooLong || $this->isExpired($connection, $now) || !$connection->isAlive()) {
                $connection->close();
                $this->open--;
                $this->discarded++;
                $surplus--;
                continue;
            }
            $kept[] = $connection;
        }
        $this->idle = $kept;
    }

    /**
     * Cancels a statement running on another pooled connection: over an idle connection when
     * there is one, else over a short-lived connection outside the pool (the pool may be full of
     * exactly the statements being cancelled).
     */
    private function cancelBackend(int $pid): void
    {
        while ($this->idle !== []) {
            $helper = \array_pop($this->idle);
            if (!$this->isReusable($helper)) {
                $this->discard($helper);
                continue;
            }
            try {
                $helper->query('SELECT pg_cancel_backend($1)', [$pid]);
            } finally {
                $this->release($helper);
            }

            return;
        }
        $connection = Connection::connect(new ConnectionConfig(
            $this->config->connection->connectionString,
            $this->config->connection->connectTimeout,
            5.0,
            0,
        ));
        try {
            $connection->query('SELECT pg_cancel_backend($1)', [$pid]);
        } finally {
            $connection->close();
        }
    }
}
