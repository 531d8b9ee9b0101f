<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Throws an exception of the class it is given, with a previous one inside. */
final class FailingTask implements Task
{
    /** @param class-string<\Throwable> $class */
    public function __construct(private readonly string $class, private readonly string $message)
    {
    }

    public function run(): never
    {
        $this->deeper();
    }

    private function deeper(): never
    {
        throw new ($this->class)($this->message, 42, new \LogicException('the cause'));
    }
}
