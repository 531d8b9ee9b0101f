<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Carries;
use Bobbin\Jobs\Task;

/** Carries a Money (declared) and returns one; with $smuggle it returns an object it did not declare. */
#[Carries(Money::class)]
final class DoubleMoneyTask implements Task
{
    public function __construct(private readonly Money $amount, private readonly bool $smuggle = false)
    {
    }

    public function run(): mixed
    {
        if ($this->smuggle) {
            return ['total' => new \ArrayObject([1])];
        }

        return new Money($this->amount->cents * 2, $this->amount->currency);
    }
}
