<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

/** The outcome of one statement: its rows (values already converted) and the affected row count. */
final class Result
{
    /**
     * @param list<array<string, mixed>> $rows
     * @param string $command the command tag, e.g. "INSERT 0 1", "SELECT 3"
     */
    public function __construct(
        public readonly array $rows,
        public readonly int $affectedRows,
        public readonly string $command,
    ) {
    }
}
