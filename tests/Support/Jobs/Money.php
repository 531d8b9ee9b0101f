<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

/** A value object a task declares it carries. */
final readonly class Money
{
    public function __construct(public int $cents, public Currency $currency)
    {
    }
}
