<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Contract;

use Closure;

/** A SQL client (PostgreSQL, MySQL): the transaction callback of its pool, as applications call it. */
interface SqlClientUnderTest extends ClientUnderTest
{
    /**
     * Runs $work in the pool's transaction(); $work gets a function that marks a key inside it.
     *
     * @template T
     * @param Closure(Closure(string): void): T $work
     * @return T
     */
    public function transaction(Closure $work): mixed;
}
