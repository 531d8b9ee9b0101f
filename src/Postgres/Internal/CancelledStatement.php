<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\StreamWatcher;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Pool\ReadStatement;
use Bobbin\Postgres\Connection;
use Bobbin\Postgres\ConnectionConfig;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\OutcomeUnknownException;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Exception\QueryTimeoutException;
use Closure;
use PgSql\Connection as PgConnection;
use PgSql\Result as PgResult;

/**
 * A statement its caller gave up on while it ran (its cancellation, or the query timeout):
 * drain() cancels it on the server and reads the rest of its answer in the background, so the
 * session can be used again; outcome() tells the caller, within SETTLE_SECONDS, one of three
 * outcomes — done (it finished before the cancel landed: its result, as if never cancelled, so
 * a committed write is never reported as failed), not done (the server cancelled or refused
 * it: the interruption, or the server's own error), or unknown (OutcomeUnknownException: no
 * answer in time; the drain goes on). Apart from Connection because only an abandoned
 * statement comes here; the session's state stays the Connection's (Connection::drain()).
 *
 * @internal made by Postgres\Connection::abandon(), one per abandoned statement
 */
final class CancelledStatement
{
    /** Bound of the background clean-up. */
    public const DRAIN_TIMEOUT = 10.0;
    /** How long the caller waits to learn whether the statement ran. */
    public const SETTLE_SECONDS = 1.0;

    public function __construct(
        private readonly PgConnection $handle,
        private readonly StreamWatcher $watcher,
        private readonly string $sql,
        private readonly ConnectionConfig $config,
    ) {
    }

    /**
     * Cancels the statement on the server and reads the rest of its answer.
     *
     * @param (Closure(int): void)|null $canceller sends pg_cancel_backend($pid) over another session
     *                                          without blocking (the pool's); null: over a new one
     * @return PgResult|PostgresException|null its result, the error it ended with, or null when
     *                                         the answer could not be read to its end
     * @throws ConnectionLostException when the session broke (its message says how)
     * @throws \Throwable when the answer did not end within DRAIN_TIMEOUT, or the session was closed meanwhile
     */
    public function drain(?Closure $canceller, int $pid)
    {
        $deadline = \microtime(true) + self::DRAIN_TIMEOUT;
        $remaining = static fn (): float => \max(0.0, $deadline - \microtime(true));
        $handle = $this->handle;
        while (($flushed = @\pg_flush($handle)) !== true) {
            if ($flushed === false) {
                throw $this->lost('The connection broke while sending a statement');
            }
            $this->watcher->awaitWritable($remaining());
        }
        if (@\pg_consume_input($handle) && @\pg_connection_busy($handle)) {
            try {
                ($canceller ?? $this->cancelOverNewConnection(...))($pid);
            } catch (\Throwable) {
                // Without the cancel the statement still ends by itself; the drain deadline bounds the wait.
            }
        }
        $result = $error = null;
        while (true) {
            while (@\pg_connection_busy($handle)) {
                $this->watcher->awaitReadable($remaining());
                if (!@\pg_consume_input($handle)) {
                    throw $this->lost('The connection broke while draining a cancelled statement');
                }
            }
            $next = @\pg_get_result($handle);
            if ($next === false) {
                break;
            }
            if (\pg_result_status($next) === \PGSQL_FATAL_ERROR) {
                $error ??= ErrorFactory::fromResult($next, $this->sql);
            } else {
                $result ??= $next;
            }
        }

        // A lost connection leaves an error result: only an error the server sent is a "no".
        return $error instanceof ConnectionLostException ? null : ($error ?? $result);
    }

    /**
     * Waits up to SETTLE_SECONDS for $drain (drain()'s task) and tells the caller what became
     * of the statement.
     *
     * @param Future<mixed> $drain
     * @param CancelledException|null $callersCancellation what the caller's cancellation threw; null when the query timeout ended the wait
     * @return PgResult
     * @throws CancelledException|PostgresException
     */
    public function outcome(Future $drain, ?CancelledException $callersCancellation)
    {
        $interruption = $callersCancellation ?? new QueryTimeoutException(\sprintf(
            'The statement ran longer than its timeout of %.3f s and was cancelled: %s',
            $this->config->queryTimeout ?? 0.0,
            $this->sql,
        ), '57014');
        try {
            $outcome = $drain->await(new TimeoutCancellation(self::SETTLE_SECONDS));
        } catch (CancelledException) {
            $outcome = null;
        }
        if ($outcome === null && ReadStatement::matches($this->sql)) {
            throw $interruption; // whatever became of a read, it changed nothing
        }
        if ($outcome === null) {
            throw new OutcomeUnknownException(\sprintf(
                '%s; the server did not confirm within %.1f s whether the statement ran, so it may or may not have taken effect',
                $interruption->getMessage(),
                self::SETTLE_SECONDS,
            ), '', '', '', '', $interruption);
        }
        if ($outcome instanceof PostgresException) {
            // 57014 query_canceled is the cancellation landing; any other error is the server's own "no".
            throw $outcome->sqlState() === '57014' ? $interruption : $outcome;
        }
        if (ReadStatement::matches($this->sql)) {
            throw $interruption; // a read that finished anyway changed nothing
        }

        return $outcome;
    }

    private function cancelOverNewConnection(int $pid): void
    {
        $connection = Connection::connect($this->config->forHelperSession());
        try {
            $connection->query('SELECT pg_cancel_backend($1)', [$pid]);
        } finally {
            $connection->close();
        }
    }

    private function lost(string $context): ConnectionLostException
    {
        $detail = SessionOpener::cleanMessage((string) @\pg_last_error($this->handle));

        return new ConnectionLostException($detail === '' ? $context : $context . ': ' . $detail);
    }
}
