<?php

declare(strict_types=1);

namespace Bobbin\Sql;

use Closure;

/**
 * One connection's prepared statements by SQL text, bounded, least recently used first: the one
 * statement-cache policy of every SQL client. A hit makes the statement the most recently used;
 * room for a new one is made by handing the least recently used to the database's closer, which
 * decides how the server forgets it (MySQL: a COM_STMT_CLOSE sent in front of the next command;
 * PostgreSQL: a DEALLOCATE before the next PREPARE).
 *
 * LRU rather than FIFO: a statement run often stays prepared however many others pass through.
 * Its bookkeeping on a hit is one array_key_last() when the statement is already the most
 * recent (one statement run again and again), an unset and an append otherwise.
 *
 * @template T of object
 */
final class StatementCache
{
    /** @var array<string, T> SQL text => statement, least recently used first */
    private array $statements = [];

    /** @param Closure(T): void $closer told about each statement evicted to make room */
    public function __construct(private readonly int $capacity, private readonly Closure $closer)
    {
    }

    /**
     * The statement for $sql, now the most recently used; null when it is not prepared.
     *
     * @return T|null
     */
    public function get(string $sql): ?object
    {
        $statement = $this->statements[$sql] ?? null;
        // Already the most recently used (one statement run again and again): nothing to move.
        if ($statement !== null && \array_key_last($this->statements) !== $sql) {
            unset($this->statements[$sql]);
            $this->statements[$sql] = $statement;
        }

        return $statement;
    }

    /**
     * Makes room for one more statement before it is prepared, handing the least recently used
     * ones to the closer, so that the server never holds more than the capacity.
     */
    public function makeRoom(): void
    {
        $closer = $this->closer;
        while ($this->statements !== [] && \count($this->statements) >= $this->capacity) {
            $oldest = (string) \array_key_first($this->statements);
            $statement = $this->statements[$oldest];
            unset($this->statements[$oldest]);
            $closer($statement);
        }
    }

    /**
     * Keeps $statement for $sql as the most recently used, making room first if needed. Without a
     * cache (capacity 0) nothing is kept: the caller closes the statement once it ran.
     *
     * @param T $statement
     */
    public function add(string $sql, object $statement): void
    {
        if ($this->capacity > 0) {
            unset($this->statements[$sql]);
            $this->makeRoom();
            $this->statements[$sql] = $statement;
        }
    }

    public function isEnabled(): bool
    {
        return $this->capacity > 0;
    }

    /** Forgets a statement the server no longer knows (nothing to close). */
    public function forget(string $sql): void
    {
        unset($this->statements[$sql]);
    }

    /** The session was reset or lost: the server's statements are gone with it, nothing to close. */
    public function clear(): void
    {
        $this->statements = [];
    }

    public function count(): int
    {
        return \count($this->statements);
    }

    /**
     * The SQL texts cached, least recently used first.
     *
     * @return list<string>
     */
    public function keys(): array
    {
        return \array_keys($this->statements);
    }
}
