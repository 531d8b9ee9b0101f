<?php

declare(strict_types=1);

namespace Bobbin\Pool;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutException;
use Bobbin\Async\Timer;
use Bobbin\Async\WaitingLine;
use Bobbin\Metrics\Histogram;
use Bobbin\Metrics\HistogramValue;

/**
 * Connections shared by the fibers of one process, whatever the database. Grows lazily up to
 * maxSize; callers beyond that wait first come, first served, each for at most acquireTimeout.
 * A connection is handed out only when it is idle and alive: broken ones are discarded and
 * replaced, one that needs cleaning (an abandoned statement, a dirty session) comes back only
 * once its connector says it is ready.
 *
 * @template C of object
 */
final class Pool
{
    use OwnsResources;

    /** @var list<C> most recently used last: reuse stays on warm connections, the rest can idle out */
    private array $idle = [];
    /** Callers waiting for a connection, each for at most acquireTimeout. */
    private readonly WaitingLine $waiters;
    /** Connections open or being opened. */
    private int $open = 0;
    /** @var int */
    private $acquisitions = 0;
    private int $timeouts = 0;
    private int $discarded = 0;
    private int $returnedInTransaction = 0;
    private float $totalWaitTime = 0.0;
    private float $maxWaitTime = 0.0;
    private bool $closed = false;
    private ?Timer $sweeper = null;
    /** Waits of callers that found every connection taken (the others waited 0). */
    private readonly Histogram $waits;

    /**
     * @param Connector<C> $connector
     * @param string $name the client and its target, password masked: the `pool` label of its metrics (PoolMetrics)
     */
    public function __construct(
        private readonly Connector $connector,
        private readonly PoolSettings $settings,
        string $name = '',
    ) {
        $this->waits = new Histogram();
        $this->waiters = new WaitingLine($settings->acquireTimeout);
        PoolMetrics::shared()->track($this, $name);
    }

    /**
     * Takes a connection for exclusive use; give it back with release().
     *
     * @return C
     * @throws PoolTimeoutException|PoolClosedException|CancelledException
     */
    public function acquire(?Cancellation $cancellation = null): object
    {
        if ($this->closed) {
            throw new PoolClosedException('The connection pool is closed');
        }
        // A caller that gave up already takes no connection: it would only send what nobody awaits.
        $cancellation?->throwIfRequested();
        $this->acquisitions++;
        while ($this->idle !== []) {
            $connection = \array_pop($this->idle);
            if ($this->isReusable($connection)) {
                return $connection;
            }
            $this->discard($connection);
        }
        if ($this->open < $this->settings->maxSize) {
            return $this->openConnection($cancellation);
        }

        return $this->awaitConnection($cancellation);
    }

    /**
     * An idle, healthy connection without waiting, or null: for a helper that must not queue
     * behind the callers it helps (a cancel request for a statement on another connection).
     * Give it back with release().
     *
     * @return C|null
     */
    public function tryAcquireIdle(): ?object
    {
        while (!$this->closed && $this->idle !== []) {
            $connection = \array_pop($this->idle);
            if ($this->isReusable($connection)) {
                return $connection;
            }
            $this->discard($connection);
        }

        return null;
    }

    /** @param C $connection */
    public function release(object $connection): void
    {
        $ready = $this->connector->prepareForReuse($connection);
        if ($ready !== null && $this->connector instanceof TransactionAwareConnector && $this->connector->isInTransaction($connection)) {
            $this->returnedInTransaction++;
        }
        if ($ready instanceof Future) {
            // Not reusable yet (a cancelled statement still draining, a session being reset):
            // it comes back once the connector is done with it.
            Async::run(function () use ($ready, $connection): void {
                try {
                    $ready->await();
                } catch (\Throwable) {
                    // Broken meanwhile: the next prepareForReuse() says so.
                }
                $this->release($connection);
            });

            return;
        }
        // isExpired() written out here and in isReusable(): both run for every statement.
        if ($ready === false || $this->closed || \microtime(true) - $this->connector->openedAt($connection) > $this->settings->maxLifetime) {
            $this->discard($connection);

            return;
        }
        if (!$this->waiters->handToFirst($connection)) {
            $this->idle[] = $connection;
        }
    }

    /** Opens connections up to minSize now instead of on first use. */
    public function warmUp(?Cancellation $cancellation = null): void
    {
        $opened = [];
        try {
            while ($this->open < $this->settings->minSize) {
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
            $this->settings->maxSize,
            $this->open,
            $idle,
            $this->open - $idle,
            $this->waiters->count(),
            $this->acquisitions,
            $this->timeouts,
            $this->discarded,
            $this->totalWaitTime,
            $this->maxWaitTime,
            $this->returnedInTransaction,
        );
    }

    /** How long acquisitions waited for a connection: those that found one at once count as 0. */
    public function waitTimes(): HistogramValue
    {
        $waited = $this->waits->value();
        $atOnce = $this->acquisitions - $waited->count;
        if ($atOnce <= 0) {
            return $waited;
        }

        return $waited->plus(new HistogramValue($waited->bounds, \array_fill(0, \count($waited->cumulative), $atOnce), 0.0, $atOnce));
    }

    public function settings(): PoolSettings
    {
        return $this->settings;
    }

    /**
     * Closes idle connections now and the others as they come back; waiting callers get a
     * PoolClosedException.
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
        $this->waiters->failAll(new PoolClosedException('The connection pool was closed while waiting for a connection'));
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** @return C */
    private function openConnection(?Cancellation $cancellation): object
    {
        $this->open++;
        try {
            $connection = $this->connector->open($cancellation);
        } catch (\Throwable $e) {
            $this->open--;
            // The slot is free again: a caller waiting in line must not pay for this caller's
            // deadline by waiting out its acquire timeout.
            $this->replaceForWaiter();
            throw $e;
        }
        $this->sweeper ??= Timer::every(
            \max(0.25, \min($this->settings->idleTimeout, $this->settings->maxLifetime) / 4),
            $this->sweep(...),
        )->unreference();

        return $connection;
    }

    /** @return C */
    private function awaitConnection(?Cancellation $cancellation): object
    {
        if ($this->waiters->count() >= $this->settings->maxWaiters) {
            $this->timeouts++;
            throw new PoolTimeoutException(\sprintf(
                'All %d connections of the pool are in use and %d callers are already waiting (the most allowed)',
                $this->settings->maxSize,
                $this->waiters->count(),
            ));
        }
        $started = \microtime(true);
        try {
            /** @var C $connection */
            $connection = $this->waiters->wait($cancellation);
        } catch (CancelledException $e) {
            $this->noteWait($started);
            $this->timeouts++;
            if (!$e instanceof TimeoutException || ($cancellation !== null && $cancellation->isRequested())) {
                throw $e; // the caller's own cancellation (or deadline)
            }
            throw new PoolTimeoutException(\sprintf(
                'No connection became free within %.3f s: all %d connections of the pool are in use (%d callers waiting)',
                $this->settings->acquireTimeout,
                $this->settings->maxSize,
                $this->waiters->count(),
            ));
        } catch (\Throwable $e) {
            $this->noteWait($started);
            throw $e;
        }
        // Not in a finally block: one stops PHP's tracing JIT (FAST_CALL), on every wait.
        $this->noteWait($started);

        return $connection;
    }

    private function noteWait(float $started): void
    {
        $waited = \microtime(true) - $started;
        $this->waits->observe($waited);
        $this->totalWaitTime += $waited;
        $this->maxWaitTime = \max($this->maxWaitTime, $waited);
    }

    /** @param C $connection */
    private function isReusable(object $connection): bool
    {
        $now = \microtime(true);
        // Every checkout asks whether the server closed the session (no round trip): a session
        // ended even moments after its last statement is replaced before a statement is sent on
        // it, not answered with a lost connection.
        if ($now - $this->connector->openedAt($connection) > $this->settings->maxLifetime || !$this->connector->isAlive($connection)) {
            return false;
        }
        if ($now - $this->connector->lastUsedAt($connection) <= $this->settings->checkAfterIdle) {
            return true;
        }
        try {
            return $this->connector->ping($connection);
        } catch (\Throwable) {
            return false;
        }
    }

    /** @param C $connection */
    private function isExpired(object $connection, float $now): bool
    {
        return $now - $this->connector->openedAt($connection) > $this->settings->maxLifetime;
    }

    /** @param C $connection */
    private function discard(object $connection): void
    {
        $this->connector->close($connection);
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
        if ($this->closed || $this->waiters->count() === 0 || $this->open >= $this->settings->maxSize) {
            return;
        }
        $this->open++;
        Async::run(function (): void {
            try {
                $connection = $this->connector->open(null);
            } catch (\Throwable $e) {
                $this->open--;
                $this->waiters->failFirst($e);

                return;
            }
            $this->release($connection);
        });
    }

    private function sweep(): void
    {
        $now = \microtime(true);
        $kept = [];
        $surplus = $this->open - $this->settings->minSize;
        // Oldest-used first, so the least useful connections go.
        foreach ($this->idle as $connection) {
            $idleTooLong = $surplus > 0 && $now - $this->connector->lastUsedAt($connection) > $this->settings->idleTimeout;
            if ($idleTooLong || $this->isExpired($connection, $now) || !$this->connector->isAlive($connection)) {
                $this->connector->close($connection);
                $this->open--;
                $this->discarded++;
                $surplus--;
                continue;
            }
            $kept[] = $connection;
        }
        $this->idle = $kept;
    }
}
