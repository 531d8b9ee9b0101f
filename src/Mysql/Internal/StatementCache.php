<?php

declare(strict_types=1);

namespace Bobbin\Mysql\Internal;

/**
 * One connection's prepared statements by SQL text, least recently used first, bounded. An
 * evicted or discarded statement is closed on the server by a COM_STMT_CLOSE that has no answer:
 * it waits here and goes out in front of the connection's next command, costing no round trip.
 *
 * @internal
 */
final class StatementCache
{
    /** @var array<string, PreparedStatement> */
    private array $statements = [];
    /**
     * COM_STMT_CLOSE packets waiting for the next command: read by the connection on every
     * statement (a call only when there are some), taken with takePendingCloses().
     *
     * @var string
     */
    public $pendingCloses = '';

    public function __construct(private readonly int $capacity)
    {
    }

    /** The statement for $sql, now the most recently used; null when it is not prepared. */
    public function get(string $sql): ?PreparedStatement
    {
        $statement = $this->statements[$sql] ?? null;
        // Already the most recently used (one statement run again and again): nothing to move.
        if ($statement !== null && \array_key_last($this->statements) !== $sql) {
            unset($this->statements[$sql]);
            $this->statements[$sql] = $statement;
        }

        return $statement;
    }

    /** Makes room for one more statement, closing the least recently used ones. */
    public function makeRoom(): void
    {
        while (\count($this->statements) >= \max(1, $this->capacity)) {
            $oldest = (string) \array_key_first($this->statements);
            $this->close($this->statements[$oldest]);
            unset($this->statements[$oldest]);
        }
    }

    /** Keeps $statement for $sql; without a cache (capacity 0) nothing is kept: closeLater() it once it ran. */
    public function add(string $sql, PreparedStatement $statement): void
    {
        if ($this->capacity > 0) {
            $this->statements[$sql] = $statement;
        }
    }

    public function isEnabled(): bool
    {
        return $this->capacity > 0;
    }

    /** Closes a statement that is not kept, with the next command. */
    public function closeLater(PreparedStatement $statement): void
    {
        $this->close($statement);
    }

    /** Forgets a statement the server no longer knows (nothing to close). */
    public function forget(string $sql): void
    {
        unset($this->statements[$sql]);
    }

    /** The session was reset or lost: the server's statements are gone with it. */
    public function clear(): void
    {
        $this->statements = [];
        $this->pendingCloses = '';
    }

    /** COM_STMT_CLOSE packets to send ahead of the next command, handed over once. */
    public function takePendingCloses(): string
    {
        $closes = $this->pendingCloses;
        $this->pendingCloses = '';

        return $closes;
    }

    public function count(): int
    {
        return \count($this->statements);
    }

    private function close(PreparedStatement $statement): void
    {
        // A command packet of its own: sequence 0, 5 bytes.
        $this->pendingCloses .= \pack('VCV', 5, Protocol::COM_STMT_CLOSE, $statement->id);
    }
}
