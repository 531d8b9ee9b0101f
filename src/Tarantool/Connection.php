<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledOutcomeUnknownException;
use Bobbin\Async\CompositeCancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Async\SharedAttempt;
use Bobbin\Async\TimeoutCancellation;
use Bobbin\Async\TimeoutException;
use Bobbin\MessagePack\Decoder;
use Bobbin\MessagePack\Encoder;
use Bobbin\Tarantool\Exception\ConnectionLostException;
use Bobbin\Tarantool\Exception\RequestTimeoutException;
use Bobbin\Tarantool\Exception\TarantoolException;
use Bobbin\Tarantool\Internal\ErrorFactory;
use Bobbin\Tarantool\Internal\Iproto;
use Bobbin\Tarantool\Internal\RequestEncoder;
use Bobbin\Tarantool\Internal\Response;
use Bobbin\Tarantool\Internal\Schema;
use Bobbin\Tarantool\Internal\Session;
use Bobbin\Tarantool\Internal\StaleNames;
use Bobbin\Tarantool\Internal\SqlDecoder;
use Closure;

/**
 * A connection to Tarantool that any number of fibers share: requests are pipelined on one
 * socket and answers matched to their fibers by sync id, in any order (Internal\Session).
 * Called outside any fiber (a script, PHP-FPM) the same methods run the loop until their own
 * answer is in.
 *
 * When the socket breaks, every waiting request fails with ConnectionLostException; the next
 * request opens a new socket and authenticates before it is sent. Only requests marked
 * idempotent are sent again. Space and index names are resolved through a schema cache; a
 * request the server refuses because the schema changed since (ER_WRONG_SCHEMA_VERSION, so it
 * never ran) is sent once more with the names read again.
 *
 * Over 400 lines: one short method per request the public API offers, with the retry and
 * schema-reload rules around them.
 */
final class Connection implements Executor
{
    use OwnsResources;

    private Session $session;
    /** @var SharedAttempt<Session> */
    private readonly SharedAttempt $reconnects;
    private bool $closed = false;
    private readonly Schema $schema;
    private readonly Decoder $decoder;
    private readonly RequestEncoder $encoder;
    /** @var array<int, Session> the session each statement id was prepared on */
    private array $preparedOn = [];
    /** Non-zero in a transaction's copy (transaction()): its stream id, its socket pinned. */
    private int $streamId = 0;
    private int $lastStreamId = 0;

    private function __construct(private readonly ConnectionConfig $config, Session $session, Decoder $decoder, RequestEncoder $encoder)
    {
        $this->session = $session;
        $this->decoder = $decoder;
        $this->encoder = $encoder;
        $this->schema = new Schema();
        $this->reconnects = new SharedAttempt();
    }

    /**
     * Opens the first socket now (greeting, authentication), so that a wrong address or
     * password fails here.
     *
     * @throws Exception\ConnectException|Exception\ConnectTimeoutException|Exception\AccessDeniedException|\Bobbin\Async\CancelledException
     */
    public static function connect(#[\SensitiveParameter] ConnectionConfig|string $config, ?Cancellation $cancellation = null): self
    {
        $config = \is_string($config) ? ConnectionConfig::fromUrl($config) : $config;
        $decoder = new Decoder($config->extensions);
        $encoder = new RequestEncoder(new Encoder($config->extensions));

        return new self($config, Session::open($config, $decoder, $encoder, $cancellation), $decoder, $encoder);
    }

    public function select(string|int $space, mixed $key = [], string|int $index = 0, int $limit = self::NO_LIMIT, int $offset = 0, Iterator $iterator = Iterator::Eq, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        $key = self::key($key);
        if (\is_int($space) && \is_int($index)) {
            // By ids the bytes are the same on every attempt: no closure to build.
            $response = $this->perform('select', Iproto::SELECT, $this->encoder->select($space, $index, $key, $limit, $offset, $iterator->value), false, $idempotent, null, $cancellation);

            /** @var list<list<mixed>> */
            return $response->data();
        }
        // Names the schema cache holds: the bytes now, valid while its version stands (perform()
        // checks before each attempt); the closure that resolves them per attempt only otherwise.
        $spaceId = \is_int($space) ? $space : $this->schema->cachedSpaceId($space);
        $indexId = $spaceId === null ? null : (\is_int($index) ? $index : $this->schema->cachedIndexId($spaceId, $index));
        $resent = $reread = false;
        if ($indexId !== null) {
            \assert($spaceId !== null);
            try {
                $response = $this->perform('select', Iproto::SELECT, $this->encoder->select($spaceId, $indexId, $key, $limit, $offset, $iterator->value), true, $idempotent, null, $cancellation, $this->schema->version);

                /** @var list<list<mixed>> */
                return $response->data();
            } catch (StaleNames $e) {
                $resent = $e->resent;
                $reread = $e->reread;
            }
        }
        $response = $this->perform('select', Iproto::SELECT, function (Session $session, ?Cancellation $cancellation) use ($space, $index, $key, $limit, $offset, $iterator): string {
            $spaceId = $this->spaceId($space, $session, $cancellation);

            return $this->encoder->select($spaceId, $this->indexId($spaceId, $index, $session, $cancellation), $key, $limit, $offset, $iterator->value);
        }, true, $idempotent, null, $cancellation, 0, $resent, $reread);

        /** @var list<list<mixed>> */
        return $response->data();
    }

    public function insert(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->store('insert', Iproto::INSERT, $space, $tuple, $idempotent, $cancellation);
    }

    public function replace(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->store('replace', Iproto::REPLACE, $space, $tuple, $idempotent, $cancellation);
    }

    public function update(string|int $space, mixed $key, array $operations, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        $key = self::key($key);
        $response = $this->perform('update', Iproto::UPDATE, \is_int($space) && \is_int($index)
            ? $this->encoder->update($space, $index, $key, $operations)
            : function (Session $session, ?Cancellation $cancellation) use ($space, $index, $key, $operations): string {
                $spaceId = $this->spaceId($space, $session, $cancellation);

                return $this->encoder->update($spaceId, $this->indexId($spaceId, $index, $session, $cancellation), $key, $operations);
            }, \is_string($space) || \is_string($index), $idempotent, null, $cancellation);

        return self::tupleOrNull($response);
    }

    public function upsert(string|int $space, array $tuple, array $operations, bool $idempotent = false, ?Cancellation $cancellation = null): void
    {
        $this->perform('upsert', Iproto::UPSERT, \is_int($space) ? $this->encoder->upsert($space, $tuple, $operations) : fn (Session $session, ?Cancellation $cancellation): string => $this->encoder->upsert(
            $this->spaceId($space, $session, $cancellation),
            $tuple,
            $operations,
        ), \is_string($space), $idempotent, null, $cancellation);
    }

    public function delete(string|int $space, mixed $key, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        $key = self::key($key);
        $response = $this->perform('delete', Iproto::DELETE, \is_int($space) && \is_int($index)
            ? $this->encoder->delete($space, $index, $key)
            : function (Session $session, ?Cancellation $cancellation) use ($space, $index, $key): string {
                $spaceId = $this->spaceId($space, $session, $cancellation);

                return $this->encoder->delete($spaceId, $this->indexId($spaceId, $index, $session, $cancellation), $key);
            }, \is_string($space) || \is_string($index), $idempotent, null, $cancellation);

        return self::tupleOrNull($response);
    }

    public function call(string $function, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        $body = $this->encoder->call($function, $arguments);

        // The function's name alone: perform() words it "call NAME" for an error only.
        return $this->perform($function, Iproto::CALL, $body, false, $idempotent, $onPush, $cancellation)->data();
    }

    public function eval(string $expression, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        $body = $this->encoder->evaluate($expression, $arguments);

        return $this->perform('eval', Iproto::EVAL, $body, false, $idempotent, $onPush, $cancellation)->data();
    }

    public function execute(string|PreparedStatement $sql, array $parameters = [], bool $idempotent = false, ?Cancellation $cancellation = null): SqlResult
    {
        $bindings = SqlDecoder::bindings($parameters);
        if (\is_string($sql)) {
            $body = $this->encoder->execute($sql, $bindings);
            $response = $this->perform('execute', Iproto::EXECUTE, $body, false, $idempotent, null, $cancellation);

            return SqlDecoder::result($response);
        }
        $response = $this->perform('execute', Iproto::EXECUTE, function (Session $session, ?Cancellation $cancellation) use ($sql, $bindings): string {
            $id = $sql->id;
            if (($this->preparedOn[$id] ?? null) !== $session) {
                // Prepared on a socket since lost: prepared statements belong to their session.
                $id = $this->prepareOn($session, $sql->sql, $cancellation)->id;
            }

            return $this->encoder->execute($id, $bindings);
        }, false, $idempotent, null, $cancellation);

        return SqlDecoder::result($response);
    }

    public function prepare(string $sql, ?Cancellation $cancellation = null): PreparedStatement
    {
        $cancellation = $this->bound($cancellation, $timeout);
        try {
            return $this->prepareOn($this->session($cancellation), $sql, $cancellation);
        } catch (TimeoutException $e) {
            throw $this->timedOut($e, $timeout);
        } finally {
            $timeout?->dispose();
        }
    }

    public function unprepare(PreparedStatement $statement, ?Cancellation $cancellation = null): void
    {
        $session = $this->preparedOn[$statement->id] ?? null;
        unset($this->preparedOn[$statement->id]);
        if ($session !== $this->session || !$session->isOpen()) {
            return; // gone with its session
        }
        $response = $session->request(Iproto::PREPARE, $this->encoder->unprepare($statement->id), $cancellation);
        if ($response->isError()) {
            throw ErrorFactory::fromResponse($response, 'unprepare');
        }
    }

    public function ping(?Cancellation $cancellation = null): void
    {
        $this->perform('ping', Iproto::PING, "\x80", false, false, null, $cancellation);
    }

    /**
     * Runs $work in an interactive transaction: BEGIN, the requests $work makes through the
     * Transaction, then COMMIT; an exception from $work sends ROLLBACK and is rethrown. The
     * transaction has a stream of its own on this connection's socket (IPROTO_STREAM_ID), so
     * other fibers go on using the connection meanwhile. Its requests are never sent again: if
     * the socket breaks the server has rolled the transaction back, and the caller gets
     * ConnectionLostException. $cancellation bounds BEGIN only: COMMIT and ROLLBACK are not
     * abandoned halfway (requestTimeout still bounds them).
     *
     * Tarantool 2.10+ (with memtx_use_mvcc_engine for memtx spaces); 2.6 refuses BEGIN with
     * "Unknown request type 14" (a QueryException, code 48) before $work runs.
     *
     * @template T
     * @param Closure(Transaction): T $work
     * @param float|null $timeout the server's bound on the transaction (IPROTO_TIMEOUT), seconds
     * @return T
     */
    public function transaction(Closure $work, ?float $timeout = null, ?Cancellation $cancellation = null): mixed
    {
        $stream = clone $this;
        $stream->streamId = ++$this->lastStreamId;
        $stream->session = $this->session($cancellation);
        $control = static fn (string $what, int $type, string $body, ?Cancellation $cancellation): Response => $stream->perform($what, $type, $body, false, false, null, $cancellation);
        $control('begin', Iproto::BEGIN, $this->encoder->begin($timeout), $cancellation);
        $transaction = new Transaction($stream, $stream->streamId);
        try {
            $result = $work($transaction);
        } catch (\Throwable $e) {
            $transaction->finish();
            try {
                $control('rollback', Iproto::ROLLBACK, "\x80", null);
            } catch (TarantoolException) {
                // $e is what the caller needs; a broken socket has rolled back already.
            }
            throw $e;
        }
        $transaction->finish();
        $control('commit', Iproto::COMMIT, "\x80", null);

        return $result;
    }

    /** Closes the socket; waiting requests get ConnectionLostException, later ones too. */
    public function close(): void
    {
        $this->closed = true;
        $this->session->close('The connection was closed');
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Without a round trip: whether the socket is open and the server has not closed it. A
     * connection whose socket broke is not alive, though its next request would reconnect.
     */
    public function isAlive(): bool
    {
        return !$this->closed && $this->session->isAlive();
    }

    /** Requests sent on the current socket and not answered yet. */
    public function inFlight(): int
    {
        return $this->session->inFlight();
    }

    /** The server's version from its greeting ("2.6.0"). */
    public function serverVersion(): string
    {
        return $this->session->greeting->version ?? '';
    }

    /** The server's schema version as of its last answer. */
    public function schemaVersion(): int
    {
        return $this->session->schemaVersion;
    }

    public function openedAt(): float
    {
        return $this->session->openedAt;
    }

    public function lastUsedAt(): float
    {
        return $this->session->lastUsedAt;
    }

    /**
     * @param list<mixed> $tuple
     * @return list<mixed>
     */
    private function store(string $what, int $type, string|int $space, array $tuple, bool $idempotent, ?Cancellation $cancellation): array
    {
        $response = $this->perform($what, $type, \is_int($space) ? $this->encoder->tuple($space, $tuple) : fn (Session $session, ?Cancellation $cancellation): string => $this->encoder->tuple(
            $this->spaceId($space, $session, $cancellation),
            $tuple,
        ), \is_string($space), $idempotent, null, $cancellation);

        return self::tupleOrNull($response) ?? [];
    }

    /**
     * Sends one request and returns its answer, reconnecting first when the socket broke. The
     * body is built per attempt: names resolve against the schema of that attempt.
     *
     * @param string|(Closure(Session, ?Cancellation): string) $body the bytes when they do not depend
     *        on the attempt (no names to resolve): no closure to build per request
     * @param (Closure(mixed): void)|null $onPush
     * @param int $builtUnder non-zero: $body holds ids the schema cache gave under that version;
     *        an attempt after the cache changed throws StaleNames instead, for the caller to
     *        resolve them again (carrying $resent and $reread over)
     * @throws StaleNames
     */
    private function perform(string $what, int $type, string|Closure $body, bool $usesNames, bool $idempotent, ?Closure $onPush, ?Cancellation $cancellation, int $builtUnder = 0, bool $resent = false, bool $reread = false): Response
    {
        $timeout = null;
        if ($this->config->requestTimeout !== null) {
            $cancellation = $this->bound($cancellation, $timeout);
        }
        // Catch and rethrow, not finally: a finally block keeps the tracing JIT off this path.
        try {
            while (true) {
                $session = $this->session($cancellation);
                if ($builtUnder !== 0 && $builtUnder !== $this->schema->version) {
                    throw new StaleNames($resent, $reread);
                }
                try {
                    // Inside: a name looked up first (the schema read) is part of the request.
                    $bytes = \is_string($body) ? $body : $body($session, $cancellation);
                    $response = $session->request($type, $bytes, $cancellation, $usesNames ? $this->schema->version : 0, $onPush, $this->streamId);
                } catch (ConnectionLostException $e) {
                    // Not when the caller gave up meanwhile (the socket broke while the
                    // cancelled request settled): that says unknown, not cancelled.
                    if ($idempotent && !$resent && !$this->closed && $cancellation?->isRequested() !== true) {
                        $resent = true;
                        continue;
                    }
                    throw $e;
                }
                if (!$response->isError()) {
                    break;
                }
                if ($response->errorCode() === Iproto::ER_WRONG_SCHEMA_VERSION && !$reread) {
                    // Refused before it ran: read the names again and send it once more.
                    $reread = true;
                    $this->schema->invalidate();
                    continue;
                }
                throw ErrorFactory::fromResponse($response, $type === Iproto::CALL ? 'call ' . $what : $what);
            }
        } catch (TimeoutException $e) {
            $error = $this->timedOut($e, $timeout);
            $timeout?->dispose();
            throw $error;
        } catch (CancelledOutcomeUnknownException $e) {
            // No answer within the settle time (Internal\CancelledRequest): the request timeout
            // that cancelled it is named as such, as a plain one would be.
            $previous = $e->getPrevious();
            $error = $previous instanceof TimeoutException ? new CancelledOutcomeUnknownException($this->timedOut($previous, $timeout)) : $e;
            $timeout?->dispose();
            throw $error;
        } catch (\Throwable $e) {
            $timeout?->dispose();
            throw $e;
        }
        $timeout?->dispose();

        return $response;
    }

    /** The caller's cancellation, bounded by the config's requestTimeout when there is one. */
    private function bound(?Cancellation $cancellation, ?TimeoutCancellation &$timeout): ?Cancellation
    {
        $timeout = null;
        if ($this->config->requestTimeout === null) {
            return $cancellation;
        }
        $timeout = new TimeoutCancellation($this->config->requestTimeout, 'request timeout');

        return $cancellation === null ? $timeout : new CompositeCancellation($cancellation, $timeout);
    }

    private function timedOut(TimeoutException $e, ?TimeoutCancellation $timeout): \Throwable
    {
        if ($timeout === null || !$timeout->isRequested()) {
            return $e; // the caller's own deadline
        }

        return new RequestTimeoutException(\sprintf('No answer from Tarantool (%s) within the request timeout of %.3f s', $this->config->describe(), $this->config->requestTimeout ?? 0.0), 0, null, $e);
    }

    private function session(?Cancellation $cancellation): Session
    {
        $session = $this->session;
        // Alive, not just open: an idle socket the server closed (a restart) is replaced before a
        // request goes out on it, as a pool's checkout does (one peek at the socket, no round trip).
        if ($session->isAlive()) {
            return $session;
        }
        if ($this->streamId !== 0) {
            throw new ConnectionLostException(\sprintf('The connection to Tarantool (%s) broke during the transaction: the server rolled it back', $this->config->describe()));
        }
        if ($this->closed) {
            throw new ConnectionLostException(\sprintf('The connection to Tarantool (%s) was closed', $this->config->describe()));
        }
        // One reconnect for everybody; each caller waits for it within its own cancellation.
        return $this->reconnects->await($this->reopen(...), $cancellation);
    }

    private function reopen(): Session
    {
        $session = Session::open($this->config, $this->decoder, $this->encoder, null);
        if ($this->closed) {
            $session->close('The connection was closed');
            throw new ConnectionLostException(\sprintf('The connection to Tarantool (%s) was closed', $this->config->describe()));
        }
        $this->session = $session;
        $this->schema->invalidate();
        $this->preparedOn = [];

        return $session;
    }

    private function spaceId(string|int $space, Session $session, ?Cancellation $cancellation): int
    {
        return \is_int($space) ? $space : $this->schema->spaceId($space, $session, $cancellation);
    }

    private function indexId(int $spaceId, string|int $index, Session $session, ?Cancellation $cancellation): int
    {
        return \is_int($index) ? $index : $this->schema->indexId($spaceId, $index, $session, $cancellation);
    }

    private function prepareOn(Session $session, string $sql, ?Cancellation $cancellation): PreparedStatement
    {
        $response = $session->request(Iproto::PREPARE, $this->encoder->prepare($sql), $cancellation);
        if ($response->isError()) {
            throw ErrorFactory::fromResponse($response, 'prepare');
        }
        $statement = SqlDecoder::prepared($sql, $response);
        $this->preparedOn[$statement->id] = $session;

        return $statement;
    }

    /** @return list<mixed> */
    private static function key(mixed $key): array
    {
        return \is_array($key) ? \array_values($key) : [$key];
    }

    /** @return list<mixed>|null */
    private static function tupleOrNull(Response $response): ?array
    {
        $tuple = $response->data()[0] ?? null;

        return \is_array($tuple) ? \array_values($tuple) : null;
    }
}
