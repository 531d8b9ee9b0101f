<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Ends its process: exit(), or a fatal error by exhausting memory_limit. */
final class ExitingTask implements Task
{
    public function __construct(private readonly bool $outOfMemory = false)
    {
    }

    public function run(): never
    {
        if ($this->outOfMemory) {
            $hog = [];
            while (true) {
                $hog[] = \str_repeat('x', 1 << 20);
            }
        }
        exit(7);
    }
}
