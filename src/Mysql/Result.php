<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

/**
 * The outcome of one statement: its rows (values already converted), the affected row count
 * (rows returned, for a SELECT), the AUTO_INCREMENT id it generated and its warning count.
 * A CALL's further result sets follow in $moreResults.
 */
final class Result
{
    /**
     * @param list<array<string, mixed>> $rows
     * @param list<Result> $moreResults
     */
    public function __construct(
        public readonly array $rows,
        public readonly int $affectedRows,
        public readonly int $lastInsertId,
        public readonly int $warnings,
        public readonly array $moreResults = [],
    ) {
    }
}
