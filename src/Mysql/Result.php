<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

/**
 * The outcome of one statement: its rows (values already converted), the affected row count
 * (rows returned, for a SELECT), the AUTO_INCREMENT id it generated and its warning count.
 * A CALL's further result sets follow in $moreResults.
 *
 * Immutable by contract (@immutable: PHPStan refuses writes after construction), with untyped
 * properties typed by @var: one is made per statement, and PHP 8.2's tracing JIT leaves compiled
 * code for the interpreter at every write to a readonly property and calls a checking helper for
 * every write to a typed one (docs/ASYNC.md, Rules). The constructor's parameters carry the types.
 *
 * @immutable
 */
final class Result extends \Bobbin\Sql\Result
{
    /** @var int|string an unsigned BIGINT id above PHP_INT_MAX is its decimal string */
    public $lastInsertId;
    /** @var int */
    public $warnings;
    /** @var list<Result> */
    public $moreResults;

    /**
     * @param list<array<string, mixed>> $rows
     * @param list<Result> $moreResults
     */
    public function __construct(array $rows, int $affectedRows, int|string $lastInsertId, int $warnings, array $moreResults = [])
    {
        $this->rows = $rows;
        $this->affectedRows = $affectedRows;
        $this->lastInsertId = $lastInsertId;
        $this->warnings = $warnings;
        $this->moreResults = $moreResults;
    }
}
