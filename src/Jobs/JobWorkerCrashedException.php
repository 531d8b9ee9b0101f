<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * The job worker running the task ended before it answered (a fatal error, exit(), out of
 * memory, kill -9). Only this task fails; the worker is replaced. The task may have run in part.
 */
final class JobWorkerCrashedException extends JobException
{
    public function __construct(string $message, public readonly int $workerPid = 0)
    {
        parent::__construct($message);
    }
}
