<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Internal;

use Bobbin\Jobs\Transport\TaskObserver;

/**
 * One submitted task on its way through the counters: knows when it was submitted and whether a
 * worker has taken it, so its end is counted from the right place.
 *
 * @internal
 */
final class TaskTicket implements TaskObserver
{
    private readonly int|float $submittedAt;
    private bool $running = false;
    public int $workerPid = 0;

    public function __construct(private readonly JobCounters $counters)
    {
        $this->submittedAt = \hrtime(true);
        $counters->submitted();
    }

    public function started(int $workerPid): void
    {
        if ($this->running) {
            return;
        }
        $this->running = true;
        $this->workerPid = $workerPid;
        $this->counters->started((\hrtime(true) - $this->submittedAt) / 1e9);
    }

    public function ended(TaskEnd $end, ?float $runSeconds = null): void
    {
        if ($runSeconds !== null) {
            $this->counters->ran($runSeconds);
        }
        $this->counters->ended($this->running, $end);
    }
}
