<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Returns what it carries, with the pid of the process that ran it. */
final class EchoTask implements Task
{
    public function __construct(public readonly mixed $value)
    {
    }

    /** @return array{value: mixed, pid: int} */
    public function run(): array
    {
        return ['value' => $this->value, 'pid' => (int) \getmypid()];
    }
}
