<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

use Bobbin\Async\Async;
use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Async\Future;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Mysql\Exception\ConnectException;
use Bobbin\Mysql\Exception\ConnectionLostException;
use Bobbin\Mysql\Exception\ConnectTimeoutException;
use Bobbin\Mysql\Exception\MysqlException;
use Bobbin\Mysql\Exception\OutcomeUnknownException;
use Bobbin\Mysql\Exception\ProtocolException;
use Bobbin\Mysql\Exception\QueryException;
use Bobbin\Mysql\Internal\ErrorFactory;
use Bobbin\Mysql\Internal\ParameterEncoder;
use Bobbin\Mysql\Internal\PendingCloses;
use Bobbin\Mysql\Internal\PreparedStatement;
use Bobbin\Mysql\Internal\Protocol;
use Bobbin\Mysql\Internal\ResponseReader;
use Bobbin\Mysql\Internal\ServerGreeting;
use Bobbin\Mysql\Internal\SessionOpener;
use Bobbin\Mysql\Internal\Transport;
use Bobbin\Pool\ReadStatement;
use Bobbin\Sql\StatementCache;
use Closure;

/**
 * One MySQL/MariaDB session, the protocol spoken in PHP over a non-blocking socket: a fiber
 * waiting for its result is suspended, never the process. Outside any fiber the same calls run
 * the loop until their own result is in.
 *
 * One statement at a time: a connection belongs to one caller (the pool hands it out
 * exclusively). A statement abandoned by its caller (cancellation, timeout) is killed on the
 * server (KILL QUERY over another session) while the connection reads the rest of its answer in
 * the background; the next statement waits for that.
 *
 * Over 400 lines: the statement path stays in one class, without calls; connecting and cancelling
 * live in Internal.
 *
 * @implements \Bobbin\Sql\Link<Result>
 */
final class Connection implements Executor, \Bobbin\Sql\Link
{
    use OwnsResources;
    use ExecutesQueries;

    /** Bound of the background clean-up after an abandoned statement. */
    private const DRAIN_TIMEOUT = 10.0;
    /** How long the caller of a cancelled statement waits to learn whether it ran (abandon()). */
    private const SETTLE_SECONDS = 1.0;
    /** ER_QUERY_INTERRUPTED: a KILL QUERY (or a timeout) stopped the statement. */
    private const ER_QUERY_INTERRUPTED = 1317;
    /** ER_UNKNOWN_STMT_HANDLER: the server no longer knows a cached statement. */
    private const UNKNOWN_STATEMENT = 1243;

    /**
     * Untyped: written twice per statement, and an enum-typed write calls the JIT's checking
     * helper (docs/ASYNC.md, Rules).
     *
     * @var ConnectionState
     */
    private $state = ConnectionState::Idle;
    /** @var StatementCache<PreparedStatement> */
    private readonly StatementCache $statements;
    private readonly PendingCloses $closes;
    private string $closeReason = 'The connection was closed';
    /** The response an abandoned statement left unread, finished by drain(). */
    private ?ResponseReader $unfinished = null;
    /** Whether the abandoned statement's KILL QUERY went out (at once in blocking mode, else from the drain). */
    private bool $killSent = false;
    /** @var Future<mixed>|null */
    private ?Future $drained = null;
    private int $status = 0;
    private bool $sessionStateChanged = false;
    /** Transactions the server rolled back by itself (deadlock): a COMMIT after one would commit nothing. */
    private int $serverRollbacks = 0;
    private readonly float $openedAt;
    private float $lastUsedAt;
    /** @var (Closure(int): void)|null */
    private ?Closure $canceller = null;
    private readonly bool $deprecateEof;
    private readonly bool $extendedMetadata;
    private readonly bool $cacheMetadata;
    private readonly bool $cachesStatements;

    private function __construct(
        private readonly Transport $transport,
        private readonly ConnectionConfig $config,
        private readonly int $connectionId,
        private readonly string $serverVersion,
        int $capabilities,
        int $mariadbCapabilities,
    ) {
        $this->openedAt = $this->lastUsedAt = \microtime(true);
        $this->statements = new StatementCache($config->statementCacheSize, ($this->closes = new PendingCloses())->add(...));
        $this->cachesStatements = $this->statements->isEnabled();
        $this->deprecateEof = ($capabilities & Protocol::CLIENT_DEPRECATE_EOF) !== 0;
        $this->extendedMetadata = ($mariadbCapabilities & Protocol::MARIADB_CLIENT_EXTENDED_METADATA) !== 0;
        $this->cacheMetadata = ($mariadbCapabilities & Protocol::MARIADB_CLIENT_CACHE_METADATA) !== 0;
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * Opens a session without blocking the loop.
     *
     * @throws ConnectException|ConnectTimeoutException|CancelledException
     */
    public static function connect(#[\SensitiveParameter] ConnectionConfig|string $config, ?Cancellation $cancellation = null): self
    {
        $config = \is_string($config) ? ConnectionConfig::fromUrl($config) : $config;

        return SessionOpener::open($config, $cancellation, static function (Transport $transport, ServerGreeting $greeting, int $capabilities, int $mariadb) use ($config, $cancellation): self {
            $connection = new self($transport, $config, $greeting->connectionId, $greeting->serverVersion, $capabilities, $mariadb);
            if (($capabilities & Protocol::CLIENT_SESSION_TRACK) !== 0) {
                $connection->trackSessionState($cancellation);
            }

            return $connection;
        });
    }

    /**
     * Runs one statement as a prepared statement (cached per SQL text), parameters typed from
     * their PHP values; `?` marks them.
     *
     * @param array<int, mixed> $params
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): Result
    {
        if ($this->config->statementCacheSize === 0 && $params === []) {
            return $this->command($sql, $cancellation);
        }
        // begin() and settle() written out, and the common outcome (one result, no error) read
        // here: this is the path of every statement, and every call on it costs.
        if ($this->state !== ConnectionState::Idle) {
            $this->awaitIdle($cancellation);
        }
        $this->state = ConnectionState::Busy;
        $timeout = $this->config->queryTimeout;
        $deadline = $timeout === null ? null : \microtime(true) + $timeout;
        $statement = null;
        try {
            $statement = $this->statements->get($sql) ?? $this->prepare($sql, $deadline, $cancellation);
            $reader = $this->exchange(ParameterEncoder::execute($statement->id, $statement->parameterCount, $params), true, $sql, $deadline, $cancellation, false, $statement);
            if ($reader->error !== null && $reader->error->code === self::UNKNOWN_STATEMENT) {
                // The server dropped the statement (nothing ran): prepare it again and run it.
                $this->statements->forget($sql);
                $statement = $this->prepare($sql, $deadline, $cancellation);
                $reader = $this->executePrepared($statement, $params, $sql, $deadline, $cancellation);
            }
            if (!$this->cachesStatements) {
                $this->closes->add($statement);
                $statement = null;
            }
            $result = $reader->error === null && $reader->localInfileRequest === null ? $reader->onlyResult() : null;
            $result ??= $this->resultOf($reader, $sql);
        } catch (\Throwable $error) {
            if ($statement !== null && !$this->cachesStatements) {
                // Cancelled while it ran: closed all the same, with the first command after the drain.
                $this->closes->add($statement);
            }
            $this->settle();
            throw $error;
        }
        // Not in a finally block: one stops PHP's tracing JIT (FAST_CALL) on every statement.
        // settle() written out; the state is not always Busy here: an abandoned statement left it Draining.
        if ($this->state === ConnectionState::Busy) { // @phpstan-ignore identical.alwaysTrue
            $this->state = ConnectionState::Idle;
            $this->transport->markIdle();
        }

        return $result;
    }

    /**
     * Runs SQL over the text protocol (COM_QUERY), without parameters: for BEGIN, SAVEPOINT,
     * SET and the like. Values are converted by column type as query() does. Not for user input:
     * the text is sent as it is.
     */
    public function command(string $sql, ?Cancellation $cancellation = null): Result
    {
        $this->begin($cancellation);
        $deadline = $this->config->queryTimeout === null ? null : \microtime(true) + $this->config->queryTimeout;
        try {
            return $this->resultOf($this->exchange(\chr(Protocol::COM_QUERY) . $sql, false, $sql, $deadline, $cancellation), $sql);
        } finally {
            $this->settle();
        }
    }

    public function transaction(Closure $work, ?\Bobbin\Sql\IsolationLevel $isolation = null, ?Cancellation $cancellation = null): mixed
    {
        return Transaction::run($this, $work, $isolation, $cancellation);
    }

    /** A round trip that proves the session works (COM_PING). */
    public function ping(?Cancellation $cancellation = null): void
    {
        $this->begin($cancellation);
        try {
            $this->resultOf($this->exchange(\chr(Protocol::COM_PING), false, 'COM_PING', null, $cancellation), 'COM_PING');
        } finally {
            $this->settle();
        }
    }

    /** The session's state as new (COM_RESET_CONNECTION): rollback; temporary tables, variables, settings, locks, statements dropped. */
    public function reset(?Cancellation $cancellation = null): void
    {
        $this->begin($cancellation);
        try {
            $this->resultOf($this->exchange(\chr(Protocol::COM_RESET_CONNECTION), false, 'COM_RESET_CONNECTION', null, $cancellation), 'COM_RESET_CONNECTION');
            $this->statements->clear();
            $this->closes->clear();
        } finally {
            $this->settle();
        }
        $this->trackSessionState($cancellation);
    }

    /** Closes the session at once; a fiber waiting on it gets a ConnectionLostException. */
    public function close(): void
    {
        if ($this->state === ConnectionState::Idle) {
            // A goodbye (COM_QUIT) spares the server an "aborted connection"; never waited for.
            $this->transport->sendIfPossible(\pack('VC', 1, Protocol::COM_QUIT));
        }
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

    /** The server's thread id of this session (what SHOW PROCESSLIST and KILL take). */
    public function connectionId(): int
    {
        return $this->connectionId;
    }

    /** The server's version, without the "5.5.5-" MariaDB puts in front for old replication clients. */
    public function serverVersion(): string
    {
        return \str_starts_with($this->serverVersion, '5.5.5-') ? \substr($this->serverVersion, 6) : $this->serverVersion;
    }

    public function isEncrypted(): bool
    {
        return $this->transport->isEncrypted();
    }

    /** Whether the server reports an open transaction (SERVER_STATUS_IN_TRANS). */
    public function inTransaction(): bool
    {
        return $this->state !== ConnectionState::Closed && ($this->status & Protocol::SERVER_STATUS_IN_TRANS) !== 0;
    }

    /** Whether the session's state (variables, temporary tables, the database) changed since it was opened or reset. */
    public function sessionStateChanged(): bool
    {
        return $this->sessionStateChanged;
    }

    /** @internal for the pool: idle, outside a transaction, session state as opened (reusable as it is) */
    public function isIdleAndClean(): bool
    {
        return $this->state === ConnectionState::Idle && ($this->status & Protocol::SERVER_STATUS_IN_TRANS) === 0 && !$this->sessionStateChanged;
    }

    /** @internal for Transaction: how many transactions the server rolled back by itself so far */
    public function serverRollbacks(): int
    {
        return $this->serverRollbacks;
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
     * A cheap liveness check without a round trip: whether the server said anything while the
     * session sat idle. A healthy idle session is silent; a server that closes it (KILL,
     * wait_timeout, shutdown) sends an error or the end of the stream, which ends it here.
     */
    public function isAlive(): bool
    {
        if ($this->state === ConnectionState::Closed) {
            return false;
        }
        if ($this->state !== ConnectionState::Idle || !$this->transport->hasArrived()) {
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
     * How an abandoned statement is killed on the server: given the connection id, it must send
     * KILL QUERY over another session without blocking. The pool supplies one that reuses its
     * idle connections; without one a short-lived connection is opened.
     *
     * @param Closure(int): void $canceller
     */
    public function setCanceller(Closure $canceller): void
    {
        $this->canceller = $canceller;
    }

    private function begin(?Cancellation $cancellation): void
    {
        if ($this->state !== ConnectionState::Idle) {
            $this->awaitIdle($cancellation);
        }
        $this->state = ConnectionState::Busy;
    }

    /** @param array<int, mixed> $params */
    private function executePrepared(PreparedStatement $statement, array $params, string $sql, ?float $deadline, ?Cancellation $cancellation): ResponseReader
    {
        return $this->exchange(
            ParameterEncoder::execute($statement->id, $statement->parameterCount, $params),
            true,
            $sql,
            $deadline,
            $cancellation,
            false,
            $statement,
        );
    }

    private function prepare(string $sql, ?float $deadline, ?Cancellation $cancellation): PreparedStatement
    {
        $this->statements->makeRoom();
        $reader = $this->exchange(\chr(Protocol::COM_STMT_PREPARE) . $sql, false, $sql, $deadline, $cancellation, true);
        if ($reader->error !== null) {
            throw $this->errorOf($reader, $sql);
        }
        $statement = new PreparedStatement($reader->statementId, $reader->parameterCount, $reader->columns());
        $this->statements->add($sql, $statement);

        return $statement;
    }

    /**
     * Sends one command and reads its whole response, suspending the fiber while the socket is
     * not ready. A cancelled or timed-out wait abandons the statement (see abandon()).
     */
    private function exchange(string $payload, bool $binary, string $sql, ?float $deadline, ?Cancellation $cancellation, bool $prepare = false, ?PreparedStatement $statement = null): ResponseReader
    {
        $reader = new ResponseReader($binary, $this->deprecateEof, $this->extendedMetadata, $this->config->decodeJson, $prepare, $this->cacheMetadata, $statement);
        $transport = $this->transport;
        $bytes = $transport->packets->frameCommand($payload);
        if ($this->closes->packets !== '') {
            $bytes = $this->closes->take() . $bytes;
        }
        $sent = false;
        try {
            $transport->send($bytes, $deadline, $cancellation);
            $sent = $justSent = true;
            while (!$reader->accept($transport->nextPayload($deadline, $cancellation, $justSent))) {
                $justSent = false;
                if ($reader->localInfileRequest !== null) {
                    // Never a local file: an empty one ends the server's request at once.
                    $transport->send($transport->packets->frame(''), $deadline, $cancellation);
                    $justSent = true;
                }
            }
        } catch (CancelledException $e) {
            if (!$sent) {
                // Half a packet on the wire: the session cannot be brought back in step.
                $this->markClosed('A statement was cancelled while it was being sent');
                throw ErrorFactory::interruption($e, $cancellation, $this->config->queryTimeout, $sql);
            }
            $this->unfinished = $reader;

            return $this->abandon($e, $cancellation, $sql);
        } catch (ConnectionLostException $e) {
            $this->markClosed($e->getMessage());
            throw new ConnectionLostException('The connection was lost: ' . $e->getMessage() . ' (' . ErrorFactory::shorten($sql) . ')', 0, '', $e);
        } catch (ProtocolException $e) {
            $this->markClosed('Protocol error: ' . $e->getMessage());
            throw $e;
        }
        $this->lastUsedAt = \microtime(true);
        if ($reader->error === null && !$reader->sessionStateChanged && $reader->status !== null) {
            $this->status = $reader->status; // noteStatus() for the common answer, without the call
        } else {
            $this->noteStatus($reader);
        }

        return $reader;
    }

    private function noteStatus(ResponseReader $reader): void
    {
        $wasInTransaction = ($this->status & Protocol::SERVER_STATUS_IN_TRANS) !== 0;
        $this->status = $reader->status ?? $this->status;
        if ($reader->sessionStateChanged) {
            $this->sessionStateChanged = true;
        }
        if ($wasInTransaction && $reader->error?->code === 1213) {
            $this->serverRollbacks++;
            $this->status &= ~Protocol::SERVER_STATUS_IN_TRANS;
        }
    }

    private function resultOf(ResponseReader $reader, string $sql): Result
    {
        if ($reader->error !== null) {
            throw $this->errorOf($reader, $sql);
        }
        if ($reader->localInfileRequest !== null) {
            throw new QueryException(\sprintf(
                'The server asked for the local file "%s" (LOAD DATA LOCAL INFILE); this client never sends local files, and sent none',
                $reader->localInfileRequest,
            ));
        }
        $results = $reader->results();
        $first = $results[0] ?? new Result([], 0, 0, 0);
        if (\count($results) === 1) {
            return $first;
        }

        return new Result($first->rows, $first->affectedRows, $first->lastInsertId, $first->warnings, \array_slice($results, 1));
    }

    private function errorOf(ResponseReader $reader, string $sql): MysqlException
    {
        \assert($reader->error !== null);
        $error = ErrorFactory::forStatement($reader->error, $sql);
        if ($error instanceof ConnectionLostException) {
            $this->markClosed($error->getMessage());
        }

        return $error;
    }

    /**
     * The caller gave up on a running statement: kill it on the server and read the rest of its
     * answer in the background, so the connection is reusable once the server is done. The
     * caller waits up to SETTLE_SECONDS for what became of it, and is told one of three
     * outcomes: done (the statement finished before the kill landed: its answer, as if never
     * cancelled — a committed write is never reported as failed), not done (the server
     * interrupted it, or refused it with an error of its own), or unknown
     * (OutcomeUnknownException: no answer in time; the drain goes on, dropping the rows).
     *
     * @throws CancelledException|MysqlException
     */
    private function abandon(CancelledException $reason, ?Cancellation $cancellation, string $sql): ResponseReader
    {
        $reader = $this->unfinished;
        \assert($reader !== null);
        $this->state = ConnectionState::Draining;
        $this->killSent = false;
        // Set before any kill runs the loop: another fiber's statement waits for it.
        $drain = Async::run($this->drain(...));
        $this->drained = $drain->ignore();
        if (Async::inMain()) {
            // Blocking mode: a kill queued for the loop would wait until the loop runs; send it
            // before anything else happens.
            $this->killUnfinished();
        }
        $interruption = ErrorFactory::interruption($reason, $cancellation, $this->config->queryTimeout, $sql);
        try {
            $drain->await(new TimeoutCancellation(self::SETTLE_SECONDS));
        } catch (CancelledException) {
            // Still running on the server: whatever it returns from now on is dropped.
        }
        if (!$reader->isDone() || $this->state === ConnectionState::Closed) {
            $reader->discardRows = true;
            if (ReadStatement::matches($sql)) {
                throw $interruption; // whatever became of a read, it changed nothing
            }
            throw new OutcomeUnknownException(\sprintf(
                '%s; the server did not confirm within %.1f s whether the statement ran, so it may or may not have taken effect',
                $interruption->getMessage(),
                self::SETTLE_SECONDS,
            ), 0, '', $interruption);
        }
        if (($reader->error !== null && $reader->error->code === self::ER_QUERY_INTERRUPTED) || ($reader->error === null && ReadStatement::matches($sql))) {
            throw $interruption; // the kill landed, or a read that changed nothing: not done
        }

        return $reader; // done, or the server's own error: the caller reads it as any answer
    }

    private function drain(): void
    {
        $deadline = \microtime(true) + self::DRAIN_TIMEOUT;
        $this->killUnfinished();
        $reader = $this->unfinished;
        $this->unfinished = null;
        try {
            \assert($reader !== null);
            // Rows are kept while the caller waits for the outcome (abandon()), dropped after.
            while (!$reader->isDone()) {
                if ($reader->accept($this->transport->nextPayload($deadline, null))) {
                    break;
                }
                if ($reader->localInfileRequest !== null) {
                    $this->transport->send($this->transport->packets->frame(''), $deadline);
                }
            }
            $this->noteStatus($reader);
            if ($this->state === ConnectionState::Draining) {
                $this->state = ConnectionState::Idle;
                $this->transport->markIdle();
            }
        } catch (\Throwable $e) {
            $this->markClosed('The connection could not be cleaned up after a cancelled statement: ' . $e->getMessage());
        }
    }

    /** Sends KILL QUERY for the abandoned statement over another session, unless its answer is complete. */
    private function killUnfinished(): void
    {
        if ($this->killSent || $this->unfinished === null || $this->unfinished->isDone()) {
            return;
        }
        $this->killSent = true;
        try {
            $this->canceller === null ? SessionOpener::killQuery($this->config, $this->connectionId) : ($this->canceller)($this->connectionId);
        } catch (\Throwable) {
            // Without the kill the statement still ends by itself; the drain deadline bounds the wait.
        }
    }

    /** Asks the server to flag every change of session state (user variables, temporary tables…). */
    private function trackSessionState(?Cancellation $cancellation): void
    {
        $this->command('SET SESSION session_track_state_change = 1', $cancellation);
        $this->sessionStateChanged = false;
    }

    /** Back to Idle after a statement, unless it was abandoned (Draining) or broke (Closed). */
    private function settle(): void
    {
        if ($this->state === ConnectionState::Busy) {
            $this->state = ConnectionState::Idle;
            $this->transport->markIdle();
        }
    }

    private function markClosed(string $reason): void
    {
        if ($this->state !== ConnectionState::Closed) {
            $this->state = ConnectionState::Closed;
            $this->closeReason = $reason;
        }
        $this->statements->clear();
        $this->transport->close();
    }
}
