<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Transport;

use Bobbin\Async\Cancellation;
use Bobbin\Async\CancelledException;
use Bobbin\Jobs\JobProtocolException;
use Bobbin\Jobs\JobTimeoutException;
use Bobbin\Jobs\JobWorkerCrashedException;
use Bobbin\Jobs\JobWorkersUnavailableException;
use Bobbin\Jobs\Wire\EncodedTask;
use Bobbin\Jobs\Wire\TaskOutcome;

/**
 * Where tasks run: the seam between Jobs (queue, statistics, serialization checks) and the
 * workers. Local job workers over a unix socket (LocalPoolTransport), the calling process itself
 * (InProcessTransport), and later other hosts over NATS (issue 26) implement it.
 */
interface JobTransport
{
    /**
     * Runs $task somewhere and returns how it ended, suspending only the calling fiber. Calls
     * $observer->started() once a worker has taken it. The time limit in $task is enforced
     * here (a worker past it is killed). A cancellation before a worker took the task withdraws
     * it (it never runs); later it only stops the wait.
     *
     * @throws JobWorkerCrashedException|JobTimeoutException|JobWorkersUnavailableException|JobProtocolException|CancelledException
     */
    public function execute(EncodedTask $task, ?Cancellation $cancellation, TaskObserver $observer): TaskOutcome;

    /** Whether execute() runs the task in the calling process, blocking it: then submit() runs it at once. */
    public function runsInCallingProcess(): bool;
}
