<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Transport;

use Bobbin\Async\Cancellation;
use Bobbin\Jobs\Execution\TaskRunner;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * Runs the task right here, as submit() must under PHP-FPM or in a script: no job workers, the
 * same serialized round trip (so a task or result that could not travel fails the same way), no
 * time limit (nothing could stop it but the process's own max_execution_time).
 */
final class InProcessTransport implements JobTransport
{
    private readonly TaskRunner $runner;

    public function __construct()
    {
        $this->runner = new TaskRunner();
    }

    public function execute(EncodedTask $task, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome
    {
        $cancellation?->throwIfRequested();
        $observer->started((int) \getmypid());

        return $this->runner->run($task);
    }

    public function runsInCallingProcess(): bool
    {
        return true;
    }
}
