<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\Async\Cancellation;
use Bobbin\Tarantool\Exception\TarantoolException;
use Closure;

/**
 * The requests of Tarantool's binary protocol, implemented by a Connection (many fibers share
 * it) and a ConnectionPool. Spaces and indexes go by name or by id; a tuple or key is a list
 * (a single key part may be given alone). Every call takes a last Cancellation.
 *
 * $idempotent: the caller says the request is safe to send again. Only then, when the
 * connection breaks before its answer, is it sent once more over a new connection; otherwise
 * the caller gets the ConnectionLostException (the request may or may not have run).
 *
 * @throws TarantoolException from every method
 */
interface Executor
{
    /** The protocol's "no limit" for select(). */
    public const NO_LIMIT = 0xFFFFFFFF;

    /** @return list<list<mixed>> the tuples found */
    public function select(string|int $space, mixed $key = [], string|int $index = 0, int $limit = self::NO_LIMIT, int $offset = 0, Iterator $iterator = Iterator::Eq, bool $idempotent = false, ?Cancellation $cancellation = null): array;

    /**
     * @param list<mixed> $tuple
     * @return list<mixed> the tuple inserted (with what the server filled in)
     */
    public function insert(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array;

    /**
     * @param list<mixed> $tuple
     * @return list<mixed> the tuple stored
     */
    public function replace(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array;

    /**
     * @param list<list<mixed>> $operations see Update
     * @return list<mixed>|null the tuple after the update, null when no tuple has that key
     */
    public function update(string|int $space, mixed $key, array $operations, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array;

    /**
     * Inserts $tuple, or applies $operations to the tuple with its primary key.
     *
     * @param list<mixed> $tuple
     * @param list<list<mixed>> $operations see Update
     */
    public function upsert(string|int $space, array $tuple, array $operations, bool $idempotent = false, ?Cancellation $cancellation = null): void;

    /** @return list<mixed>|null the tuple deleted, null when there was none */
    public function delete(string|int $space, mixed $key, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array;

    /**
     * Calls a stored or global Lua function. Messages it sends with box.session.push() before
     * returning go to $onPush, in order, before this returns (called from whichever fiber reads
     * the connection: it should not wait long; a full Channel's send() holds up the connection).
     *
     * @param list<mixed> $arguments
     * @param (Closure(mixed): void)|null $onPush
     * @return list<mixed> the values the function returned
     */
    public function call(string $function, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array;

    /**
     * Runs a Lua chunk (its arguments are `...`); pushes as for call().
     *
     * @param list<mixed> $arguments
     * @param (Closure(mixed): void)|null $onPush
     * @return list<mixed> the values it returned
     */
    public function eval(string $expression, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array;

    /**
     * Runs one SQL statement, its parameters bound by position (`?`) or by name (`:name`,
     * given as a map).
     *
     * @param array<int|string, mixed> $parameters
     */
    public function execute(string|PreparedStatement $sql, array $parameters = [], bool $idempotent = false, ?Cancellation $cancellation = null): SqlResult;

    public function prepare(string $sql, ?Cancellation $cancellation = null): PreparedStatement;

    public function unprepare(PreparedStatement $statement, ?Cancellation $cancellation = null): void;

    public function ping(?Cancellation $cancellation = null): void;
}
