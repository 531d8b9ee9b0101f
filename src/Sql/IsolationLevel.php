<?php

declare(strict_types=1);

namespace Bobbin\Sql;

/** A transaction isolation level: each client's enum of the levels its server knows. */
interface IsolationLevel
{
    /** The level as SQL names it ("REPEATABLE READ"). */
    public function sql(): string;
}
