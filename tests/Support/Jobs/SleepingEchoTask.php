<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Sleeps, then answers its pid; without a time limit of its own (the pool's applies). */
final class SleepingEchoTask implements Task
{
    public function __construct(private readonly float $seconds)
    {
    }

    public function run(): int
    {
        \usleep((int) ($this->seconds * 1e6));

        return (int) \getmypid();
    }
}
