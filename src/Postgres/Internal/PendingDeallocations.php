<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

/**
 * Statements evicted from the statement cache (the closer of Bobbin\Sql\StatementCache), to
 * DEALLOCATE on the server before the next PREPARE. libpq as PHP exposes it has no pipeline mode
 * and no Close message of its own, and a DEALLOCATE cannot share a request with a statement
 * that has parameters: the DEALLOCATE is a round trip of its own, paid only when a statement is
 * evicted (a miss on a full cache), never on a hit.
 *
 * @internal
 */
final class PendingDeallocations
{
    /** @var list<string> */
    private array $names = [];

    public function add(PreparedStatement $statement): void
    {
        $this->names[] = $statement->name;
    }

    /** The SQL that deallocates them all (simple protocol, one request), handed over once; '' if none. */
    public function take(): string
    {
        $sql = $this->names === [] ? '' : 'DEALLOCATE ' . \implode('; DEALLOCATE ', $this->names);
        $this->names = [];

        return $sql;
    }
}
