<?php

declare(strict_types=1);

namespace Bobbin\Tarantool;

/**
 * What an SQL statement returned: rows by column name (a SELECT), or the count of rows changed
 * and the ids an autoincrement field was given (INSERT, UPDATE, DELETE, DDL).
 */
final class SqlResult
{
    /**
     * @param list<array<string, mixed>> $rows
     * @param list<array{name: string, type: string}> $columns
     * @param list<int> $autoincrementIds
     */
    public function __construct(
        public readonly array $rows,
        public readonly array $columns,
        public readonly int $rowCount,
        public readonly array $autoincrementIds = [],
    ) {
    }
}
