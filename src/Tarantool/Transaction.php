<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

use Bobbin\Async\Cancellation;
use Bobbin\Async\OwnsResources;
use Bobbin\Tarantool\Exception\TransactionException;
use Closure;

/**
 * The requests of one interactive transaction (Connection::transaction()): they go out on the
 * transaction's own stream of the connection's socket, so the server runs them inside it while
 * other fibers' requests on the same socket run outside. Usable only inside its callback.
 */
final class Transaction implements Executor
{
    use OwnsResources;

    private bool $finished = false;

    /** @internal made by Connection::transaction() with a connection bound to the stream */
    public function __construct(private readonly Connection $stream, public readonly int $streamId)
    {
    }

    /** @internal the callback returned or threw: no more requests */
    public function finish(): void
    {
        $this->finished = true;
    }

    public function select(string|int $space, mixed $key = [], string|int $index = 0, int $limit = self::NO_LIMIT, int $offset = 0, Iterator $iterator = Iterator::Eq, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->open()->select($space, $key, $index, $limit, $offset, $iterator, $idempotent, $cancellation);
    }

    public function insert(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->open()->insert($space, $tuple, $idempotent, $cancellation);
    }

    public function replace(string|int $space, array $tuple, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->open()->replace($space, $tuple, $idempotent, $cancellation);
    }

    public function update(string|int $space, mixed $key, array $operations, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        return $this->open()->update($space, $key, $operations, $index, $idempotent, $cancellation);
    }

    public function upsert(string|int $space, array $tuple, array $operations, bool $idempotent = false, ?Cancellation $cancellation = null): void
    {
        $this->open()->upsert($space, $tuple, $operations, $idempotent, $cancellation);
    }

    public function delete(string|int $space, mixed $key, string|int $index = 0, bool $idempotent = false, ?Cancellation $cancellation = null): ?array
    {
        return $this->open()->delete($space, $key, $index, $idempotent, $cancellation);
    }

    public function call(string $function, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->open()->call($function, $arguments, $onPush, $idempotent, $cancellation);
    }

    public function eval(string $expression, array $arguments = [], ?Closure $onPush = null, bool $idempotent = false, ?Cancellation $cancellation = null): array
    {
        return $this->open()->eval($expression, $arguments, $onPush, $idempotent, $cancellation);
    }

    public function execute(string|PreparedStatement $sql, array $parameters = [], bool $idempotent = false, ?Cancellation $cancellation = null): SqlResult
    {
        return $this->open()->execute($sql, $parameters, $idempotent, $cancellation);
    }

    public function prepare(string $sql, ?Cancellation $cancellation = null): PreparedStatement
    {
        return $this->open()->prepare($sql, $cancellation);
    }

    public function unprepare(PreparedStatement $statement, ?Cancellation $cancellation = null): void
    {
        $this->open()->unprepare($statement, $cancellation);
    }

    public function ping(?Cancellation $cancellation = null): void
    {
        $this->open()->ping($cancellation);
    }

    private function open(): Connection
    {
        if ($this->finished) {
            throw new TransactionException('The transaction was used after its callback returned');
        }

        return $this->stream;
    }
}
