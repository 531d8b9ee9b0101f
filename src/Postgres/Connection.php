<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

use Bobbin\Async\Async;
use Bobbin\Async\IdleSocketPeek;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\StreamClosedException;
use Bobbin\Async\StreamWatcher;
use Bobbin\Platform\RequiredExtension;
use Bobbin\Postgres\Exception\ConnectException;
use Bobbin\Postgres\Exception\ConnectionLostException;
use Bobbin\Postgres\Exception\ConnectTimeoutException;
use Bobbin\Postgres\Exception\PostgresException;
use Bobbin\Postgres\Exception\QueryException;
use Bobbin\Postgres\Internal\CancelledStatement;
use Bobbin\Postgres\Internal\ErrorFactory;
use Bobbin\Postgres\Internal\IdleArrival;
use Bobbin\Postgres\Internal\PendingDeallocations;
use Bobbin\Postgres\Internal\PreparedStatement;
use Bobbin\Postgres\Internal\SessionOpener;
use Bobbin\Postgres\Internal\ValueConverter;
use Bobbin\Sql\IsolationLevel as SqlIsolationLevel;
use Bobbin\Sql\Link;
use Bobbin\Sql\StatementCache;
use Closure;
use PgSql\Connection as PgConnection;
use PgSql\Result as PgResult;

/**
 * One PostgreSQL session driven through the event loop: a fiber waiting for its result is
 * suspended, never the process. Outside any fiber the same calls run the loop until their own
 * result is in.
 *
 * One statement at a time: a connection belongs to one caller (the pool hands it out
 * exclusively). A statement abandoned by its caller (cancellation, timeout) is cancelled on the
 * server while the connection drains in the background; the next statement waits for that.
 *
 * ext-pgsql quirks this class relies on (PHP 8.2):
 * - stream_set_blocking($socket, true) on the pg_socket() stream calls PQsetnonblocking(conn, 1):
 *   the flag is passed through inverted. Non-blocking libpq lets pg_send_* return 0 when the
 *   socket buffer is full instead of sleeping in a usleep loop inside the extension, so it is
 *   set before every large send (pg_connection_busy() switches libpq back to blocking each time).
 * - pg_socket() returns a new stream object on every call: it is fetched once after connecting.
 *
 * Over 400 lines: the libpq rules above live here, on the statement path; what is not per
 * statement is in SessionOpener, CancelledStatement and IdleArrival.
 *
 * @implements Link<Result>
 */
final class Connection implements Executor, Link
{
    use OwnsResources;
    use ExecutesQueries;

    private const SEND_SIMPLE = 0;
    private const SEND_PARAMS = 1;
    private const SEND_PREPARE = 2;
    private const SEND_EXECUTE = 3;
    /** Requests above this many bytes may not fit the socket buffer: sent without blocking. */
    private const LARGE_REQUEST = 16_384;

    /** @var ConnectionState */
    private $state = ConnectionState::Idle;
    /** @var StatementCache<PreparedStatement> */
    private readonly StatementCache $statements;
    private readonly PendingDeallocations $deallocations;
    /** @var int */
    private $statementSequence = 0;
    /** @var Future<mixed>|null */
    private ?Future $drained = null;
    private string $closeReason = 'The connection was closed';
    private bool $handleClosed = false;
    /**
     * Set when the server went away right after a complete answer: the caller still gets that
     * answer, and the connection closes once the statement is over (settle()).
     */
    private ?string $lostAfterAnswer = null;
    /** Peeks at what arrived while idle (made on first need). */
    private ?IdleSocketPeek $idlePeek = null;
    private readonly float $openedAt;
    /** @var float */
    private $lastUsedAt;
    /** @var (Closure(int): void)|null */
    private ?Closure $canceller = null;

    /** @param resource $socket */
    private function __construct(
        private readonly PgConnection $handle,
        private readonly mixed $socket,
        private readonly StreamWatcher $watcher,
        private readonly int $pid,
        private readonly ConnectionConfig $config,
    ) {
        $this->openedAt = $this->lastUsedAt = \microtime(true);
        $this->statements = new StatementCache($config->statementCacheSize, ($this->deallocations = new PendingDeallocations())->add(...));
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * Opens a session without blocking the loop (Internal\SessionOpener: the connect, TLS, the
     * persistent session of the classic SAPIs).
     *
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    public static function connect(#[\SensitiveParameter] ConnectionConfig|string $config, ?Cancellation $cancellation = null): self
    {
        RequiredExtension::check('pgsql', 'The PostgreSQL client (Bobbin\\Postgres)');
        $config = \is_string($config) ? new ConnectionConfig($config) : $config;
        $cancellation?->throwIfRequested();
        $opener = new SessionOpener($config);
        if (!$config->persistent) {
            [$handle, $socket] = $opener->open($cancellation);

            return new self($handle, $socket, new StreamWatcher($socket), (int) \pg_get_pid($handle), $config);
        }
        [$handle, $socket] = $opener->openPersistent();
        $connection = new self($handle, $socket, new StreamWatcher($socket), (int) \pg_get_pid($handle), $config);
        if (\pg_transaction_status($handle) !== \PGSQL_TRANSACTION_IDLE) {
            // A transaction a request that died half-way left open on this process's session.
            $connection->command('ROLLBACK', $cancellation);
        }

        return $connection;
    }

    /** @param array<int, mixed> $params */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        if ($this->state !== ConnectionState::Idle) {
            $this->awaitIdle($cancellation);
        }
        $params = $params === [] ? [] : ValueConverter::params($params);
        $deadline = $this->config->queryTimeout === null ? null : \microtime(true) + $this->config->queryTimeout;
        $this->state = ConnectionState::Busy;
        try {
            if ($this->config->statementCacheSize === 0) {
                $result = $this->roundTrip(self::SEND_PARAMS, $sql, '', $params, $cancellation, $deadline);
                $kinds = ValueConverter::columnKinds($result, $this->config->decodeJson);
            } else {
                $statement = $this->statements->get($sql) ?? $this->prepare($sql, $cancellation, $deadline);
                try {
                    $result = $this->roundTrip(self::SEND_EXECUTE, $sql, $statement->name, $params, $cancellation, $deadline);
                } catch (QueryException $e) {
                    if (!self::invalidatesStatement($e)) {
                        throw $e;
                    }
                    // The cached statement no longer fits (its result columns changed with the
                    // schema, or DISCARD/DEALLOCATE removed it): forget it. Outside a transaction
                    // the statement had no effect and is simply prepared and run again.
                    $this->statements->forget($sql);
                    if (\pg_transaction_status($this->handle) !== \PGSQL_TRANSACTION_IDLE) {
                        throw $e;
                    }
                    $statement = $this->prepare($sql, $cancellation, $deadline);
                    $result = $this->roundTrip(self::SEND_EXECUTE, $sql, $statement->name, $params, $cancellation, $deadline);
                }
                $kinds = $statement->kinds ?? ($statement->kinds = ValueConverter::columnKinds($result, $this->config->decodeJson));
            }
            $rows = ValueConverter::rows($result, $kinds);
            $answer = new Result($rows, \pg_affected_rows($result), (string) \pg_result_status($result, \PGSQL_STATUS_STRING));
        } catch (\Throwable $error) {
            $this->settle();
            throw $error;
        }
        // Not in a finally block: one stops PHP's tracing JIT (FAST_CALL) on every statement.
        $this->settle();

        return $answer;
    }

    /**
     * Runs statements without parameters over the simple protocol (BEGIN, SAVEPOINT, LISTEN…).
     * Values are not converted. Not for user input: the text is sent as it is.
     */
    public function command(string $sql, ?Cancellation $cancellation = null): Result
    {
        if ($this->state !== ConnectionState::Idle) {
            $this->awaitIdle($cancellation);
        }
        $deadline = $this->config->queryTimeout === null ? null : \microtime(true) + $this->config->queryTimeout;
        $this->state = ConnectionState::Busy;
        try {
            $result = $this->roundTrip(self::SEND_SIMPLE, $sql, '', [], $cancellation, $deadline);

            return new Result(
                ValueConverter::rows($result, []),
                \pg_affected_rows($result),
                (string) \pg_result_status($result, \PGSQL_STATUS_STRING),
            );
        } finally {
            $this->settle();
        }
    }

    public function transaction(Closure $work, ?SqlIsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        return Transaction::run($this, $work, $isolation, $cancellation);
    }

    /**
     * Subscribes this connection to $channel. The connection should be dedicated to listening
     * (ConnectionPool::listen() opens one).
     */
    public function listen(string $channel, int $capacity = 1024): Listener
    {
        $this->command('LISTEN ' . \pg_escape_identifier($this->handle, $channel));

        return new Listener($this, $this->handle, $this->watcher, $channel, $capacity);
    }

    /** Closes the session at once; a fiber waiting on it gets a ConnectionLostException. */
    public function close(): void
    {
        $this->markClosed('The connection was closed');
    }

    public function state(): ConnectionState
    {
        return $this->state;
    }

    public function isClosed(): bool
    {
        return $this->state === ConnectionState::Closed;
    }

    /** The server process id of this session (what pg_stat_activity.pid shows). */
    public function pid(): int
    {
        return $this->pid;
    }

    public function inTransaction(): bool
    {
        return $this->state !== ConnectionState::Closed
            && (int) \pg_transaction_status($this->handle) !== \PGSQL_TRANSACTION_IDLE;
    }

    public function openedAt(): float
    {
        return $this->openedAt;
    }

    public function lastUsedAt(): float
    {
        return $this->lastUsedAt;
    }

    /** Prepared statements currently cached on this session. */
    public function cachedStatements(): int
    {
        return $this->statements->count();
    }

    /**
     * A cheap liveness check without a round trip: whether the server closed the session while
     * it sat idle (a terminated backend, a restart). One non-blocking peek at the socket (a
     * syscall, about a third of a poll's cost: it is asked at every checkout), which finds
     * nothing on a healthy idle session; only when something arrived is it looked at.
     */
    public function isAlive(): bool
    {
        if ($this->state === ConnectionState::Closed) {
            return false;
        }
        if ($this->state !== ConnectionState::Idle) {
            return true;
        }
        // The first byte the server sent while the session was idle (null: nothing; '': the end of
        // the stream or a socket error); Internal\IdleArrival says whether it ends the session.
        // Peeked, not read: libpq takes an ErrorResponse for a notice and keeps the connection
        // open until the end of the stream arrives, which a terminated backend sends 0.3-1.7 ms
        // later, after its exit. The next message starts at the socket's first byte, as libpq read
        // the last answer through its ReadyForQuery (were it ever mid-message, the worst outcome
        // is one needless reconnect). Over TLS the bytes are records, never an 'E': there only
        // the end of the stream is seen early.
        $arrived = ($this->idlePeek ??= new IdleSocketPeek($this->socket))->firstByte();
        if ($arrived === null || !IdleArrival::endsSession($this->handle, $arrived)) {
            return true;
        }
        $this->markClosed('The server closed the connection while it was idle');

        return false;
    }

    /**
     * Waits until an abandoned statement has been cleaned up.
     *
     * @throws ConnectionLostException when the connection is closed (or closes meanwhile)
     */
    public function awaitIdle(?Cancellation $cancellation = null): void
    {
        if ($this->state === ConnectionState::Draining && $this->drained !== null) {
            $this->drained->await($cancellation);
        }
        if ($this->state === ConnectionState::Closed) {
            throw new ConnectionLostException($this->closeReason);
        }
        if ($this->state === ConnectionState::Busy) {
            throw new \LogicException('The connection is already running a statement for another caller');
        }
    }

    /**
     * How an abandoned statement is cancelled on the server: given the backend pid, it must send
     * pg_cancel_backend() over another session without blocking. The pool supplies one that
     * reuses its idle connections.
     *
     * @param Closure(int): void $canceller
     */
    public function setCanceller(Closure $canceller): void
    {
        $this->canceller = $canceller;
    }

    /** Prepares $sql and caches it, the least recently used statement deallocated first if the cache is full. */
    private function prepare(string $sql, ?Cancellation $cancellation, ?float $deadline): PreparedStatement
    {
        $this->statements->makeRoom();
        if (($deallocate = $this->deallocations->take()) !== '') {
            try {
                $this->roundTrip(self::SEND_SIMPLE, $deallocate, '', [], $cancellation, $deadline);
            } catch (QueryException) {
                // In an aborted transaction DEALLOCATE fails too; the unused statement is harmless.
            }
        }
        $statement = new PreparedStatement('bobbin_' . ++$this->statementSequence);
        $this->roundTrip(self::SEND_PREPARE, $sql, $statement->name, [], $cancellation, $deadline);
        $this->statements->add($sql, $statement);

        return $statement;
    }

    /**
     * Sends one request and collects its results, suspending the fiber while the socket is not
     * ready. Error results become exceptions after the connection is back in sync. The
     * cancellation's and the result's classes are the docblock's, not declared: every statement
     * passes here, and PHP 8.2's JIT checks a declared class type with a call (docs/ASYNC.md, Rules).
     *
     * @param list<string|null> $params
     * @param ?Cancellation $cancellation
     * @return PgResult
     */
    private function roundTrip(int $mode, string $sql, string $name, array $params, $cancellation, ?float $deadline)
    {
        if ($this->lostAfterAnswer !== null) {
            // The statement's preparation was answered, and then the server left.
            $this->markClosed($this->lostAfterAnswer);
            throw new ConnectionLostException($this->closeReason);
        }
        $size = \strlen($sql);
        foreach ($params as $param) {
            $size += \strlen((string) $param);
        }
        if ($size > self::LARGE_REQUEST) {
            // = PQsetnonblocking(conn, 1), see the class comment. Small requests always fit the
            // socket buffer and go out in one write anyway, so they skip this call.
            \stream_set_blocking($this->socket, true);
        }
        $sent = match ($mode) {
            self::SEND_EXECUTE => @\pg_send_execute($this->handle, $name, $params),
            self::SEND_PREPARE => @\pg_send_prepare($this->handle, $name, $sql),
            self::SEND_PARAMS => @\pg_send_query_params($this->handle, $sql, $params),
            default => @\pg_send_query($this->handle, $sql),
        };
        $handle = $this->handle;
        $watcher = $this->watcher;
        $result = null;
        $error = null;
        try {
            if ($sent !== true) {
                if ($sent === false) {
                    throw $this->sendFailed();
                }
                while (($flushed = @\pg_flush($handle)) !== true) {
                    if ($flushed === false) {
                        throw $this->lost('The connection broke while sending a statement');
                    }
                    $watcher->awaitWritable($deadline === null ? null : \max(0.0, $deadline - \microtime(true)), $cancellation);
                }
            }
            $broken = false;
            // With nothing else on the loop (a plain script, a PHP-FPM request) and no deadline
            // or cancellation to honour, pg_get_result() may wait inside libpq, exactly as a
            // blocking pg_query_params() does: one poll() and one read, no busy checks.
            $waitInLibpq = $sent === true && $deadline === null && $cancellation === null && $watcher->loopIsIdle();
            // PHP's pg_connection_busy() reads the socket (PQconsumeInput) before it answers, so
            // each call costs a recv(). Right after a send that went out whole nothing can have
            // arrived yet: wait first, and let that one call read the answer.
            $waitFirst = $sent === true;
            while (true) {
                while (!$broken && !$waitInLibpq) {
                    if ($waitFirst) {
                        $waitFirst = false;
                        $watcher->awaitReadable($deadline === null ? null : \max(0.0, $deadline - \microtime(true)), $cancellation);
                    }
                    if (!@\pg_connection_busy($handle)) {
                        break;
                    }
                    // Still busy: only part of the answer is here, or the connection broke
                    // (pg_connection_busy() cannot tell). On failure, the results libpq still
                    // holds carry the reason (e.g. the FATAL of a terminated backend); the socket
                    // is gone, so reading them never waits. This read may also bring in the rest
                    // of the answer, which would then never make the socket readable again: look
                    // before waiting.
                    $broken = !@\pg_consume_input($handle);
                    // @phpstan-ignore booleanNot.alwaysFalse (each call reads the socket first: the answer can change)
                    if ($broken || !@\pg_connection_busy($handle)) {
                        break;
                    }
                    $watcher->awaitReadable($deadline === null ? null : \max(0.0, $deadline - \microtime(true)), $cancellation);
                }
                $next = @\pg_get_result($handle);
                if ($next === false) {
                    break;
                }
                if (\pg_result_status($next) === \PGSQL_FATAL_ERROR) {
                    $error ??= ErrorFactory::fromResult($next, $sql);
                } else {
                    $result ??= $next;
                }
            }
        } catch (CancelledException $e) {
            return $this->abandon($e, $cancellation, $sql);
        } catch (StreamClosedException) {
            throw new ConnectionLostException($this->closeReason);
        }
        $this->lastUsedAt = \microtime(true);

        if (\pg_connection_status($handle) !== \PGSQL_CONNECTION_OK || $error instanceof ConnectionLostException) {
            $message = $error?->getMessage() ?? SessionOpener::cleanMessage((string) @\pg_last_error($handle));
            if ($error === null && $result !== null) {
                // pg_get_result() said "no more" before any error result: the statement's result
                // and ReadyForQuery were read, so the exchange ended and its outcome is known (a
                // connection lost earlier always leaves an error result). The server went away
                // only afterwards, e.g. a backend terminated while idle. A committed write must
                // not be reported as failed: the caller gets the result, the connection closes.
                $this->lostAfterAnswer = 'The server closed the connection after answering: ' . $message;

                return $result;
            }
            $this->markClosed('The connection was lost: ' . $message);
            throw new ConnectionLostException(
                'The connection was lost: ' . $message,
                $error?->sqlState() ?? '',
                $error?->detail() ?? '',
                $error?->hint() ?? '',
                '',
                $error,
            );
        }
        if ($error !== null) {
            throw $error;
        }
        if ($result === null) {
            throw new QueryException('PostgreSQL returned no result for: ' . $sql);
        }

        return $result;
    }

    /**
     * The caller gave up on a running statement: it is cancelled on the server and its results
     * drained in the background, so the connection is reusable once the server is idle again;
     * the caller learns within a bound whether it ran (Internal\CancelledStatement: done, not
     * done, or unknown).
     *
     * @return PgResult
     * @throws CancelledException|PostgresException
     */
    private function abandon(CancelledException $reason, ?Cancellation $cancellation, string $sql)
    {
        $this->state = ConnectionState::Draining;
        $statement = new CancelledStatement($this->handle, $this->watcher, $sql, $this->config);
        $drain = Async::run(fn () => $this->drain($statement));
        $this->drained = $drain->ignore();

        return $statement->outcome($drain, $cancellation !== null && $cancellation->isRequested() ? $reason : null);
    }

    /**
     * The background task of abandon(): the drain, then the session back to Idle, or closed when
     * it broke or could not be cleaned up in time.
     *
     * @return PgResult|PostgresException|null what CancelledStatement::drain() found
     */
    private function drain(CancelledStatement $statement)
    {
        $outcome = null;
        try {
            $outcome = $statement->drain($this->canceller, $this->pid);
            if ($this->state === ConnectionState::Draining) {
                $this->state = \pg_connection_status($this->handle) === \PGSQL_CONNECTION_OK
                    ? ConnectionState::Idle
                    : ConnectionState::Closed;
                if ($this->state === ConnectionState::Idle) {
                    $this->markIdle();
                }
            }
        } catch (ConnectionLostException $e) {
            $this->markClosed($e->getMessage()); // how the session broke
        } catch (\Throwable $e) {
            $this->markClosed('The connection could not be cleaned up after a cancelled statement: ' . $e->getMessage());
        }
        if ($this->state === ConnectionState::Closed) {
            $this->markClosed($this->closeReason);
        }

        return $outcome;
    }

    private static function invalidatesStatement(QueryException $e): bool
    {
        return $e->sqlState() === '26000' // invalid_sql_statement_name: the statement is gone
            || ($e->sqlState() === '0A000' && \str_contains($e->getMessage(), 'cached plan must not change result type'));
    }

    /**
     * Back to Idle after a statement, unless it was abandoned (Draining) or broke (Closed), or
     * the server left right after answering it (closed now that the caller has the answer).
     */
    private function settle(): void
    {
        if ($this->lostAfterAnswer !== null) {
            $this->markClosed($this->lostAfterAnswer);
            $this->lostAfterAnswer = null;

            return;
        }
        if ($this->state === ConnectionState::Busy) {
            $this->state = ConnectionState::Idle;
            $this->markIdle();
        }
    }

    /** From here on the socket should stay silent: isAlive() may take the loop's word for it. */
    private function markIdle(): void
    {
        ($this->idlePeek ??= new IdleSocketPeek($this->socket))->markIdle();
    }

    private function sendFailed(): PostgresException
    {
        if (\pg_connection_status($this->handle) !== \PGSQL_CONNECTION_OK) {
            return $this->lost('The connection was lost before the statement was sent');
        }

        return new QueryException('The statement could not be sent: ' . SessionOpener::cleanMessage((string) @\pg_last_error($this->handle)));
    }

    private function lost(string $context): ConnectionLostException
    {
        $detail = SessionOpener::cleanMessage((string) @\pg_last_error($this->handle));
        $message = $detail === '' ? $context : $context . ': ' . $detail;
        $this->markClosed($message);

        return new ConnectionLostException($message);
    }

    private function markClosed(string $reason): void
    {
        // A statement still running: libpq's close reads its results first (PHP's pg_close()
        // loops on PQgetResult), which would hold the loop — or a process that is ending —
        // until the server finishes it. Shut the socket down first: the reads end at once.
        $unfinished = $this->state === ConnectionState::Busy || $this->state === ConnectionState::Draining;
        if ($this->state !== ConnectionState::Closed) {
            $this->state = ConnectionState::Closed;
            $this->closeReason = $reason;
        }
        if ($this->handleClosed) {
            return;
        }
        $this->handleClosed = true;
        $this->statements->clear();
        $this->idlePeek = null;
        $this->watcher->close();
        if ($unfinished && \function_exists('socket_import_stream')) {
            $socket = @\socket_import_stream($this->socket);
            if ($socket !== false) {
                @\socket_shutdown($socket, 2);
            }
        }
        if (!$this->config->persistent) {
            // A persistent session stays open for the next request of this PHP process.
            @\pg_close($this->handle);
        }
    }
}
