<?php

declare(strict_types=1);

namespace Bobbin\Sql;

/**
 * What every database's result has: its rows (values already converted) and the affected row
 * count. Each client's Result extends it with what its protocol adds (PostgreSQL's command tag,
 * MySQL's insert id and warnings).
 *
 * Untyped properties typed by @var, set by the subclass's constructor: one is made per
 * statement, and PHP 8.2's tracing JIT leaves compiled code for the interpreter at every write
 * to a readonly property and calls a checking helper for every write to a typed one
 * (docs/ASYNC.md, Rules). Read-only by contract.
 */
abstract class Result
{
    /** @var list<array<string, mixed>> */
    public $rows;
    /** @var int */
    public $affectedRows;
}
