<?php

declare(strict_types=1);

namespace Bobbin\Postgres;

/**
 * The outcome of one statement: its rows (values already converted) and the affected row count.
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
    /** @var string the command tag, e.g. "INSERT 0 1", "SELECT 3" */
    public $command;

    /**
     * @param list<array<string, mixed>> $rows
     * @param string $command the command tag, e.g. "INSERT 0 1", "SELECT 3"
     */
    public function __construct(array $rows, int $affectedRows, string $command)
    {
        $this->rows = $rows;
        $this->affectedRows = $affectedRows;
        $this->command = $command;
    }
}
