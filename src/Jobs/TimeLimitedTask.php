<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** A task with its own run-time limit instead of the pool's (--job-timeout). */
interface TimeLimitedTask extends Task
{
    /** Seconds the task may run in its job worker before the worker is killed; 0 for no limit. */
    public function timeLimit(): float;
}
