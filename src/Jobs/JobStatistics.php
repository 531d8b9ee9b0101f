<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * The jobs of one process (one HTTP worker) at one moment, for metrics: gauges (waiting, queued,
 * running) and counters since the process started. Times are seconds, summed over tasks, so a
 * rate of the sum divided by a rate of the count is an average.
 */
final readonly class JobStatistics
{
    public function __construct(
        /** How many tasks the queue holds at most (queued + running). */
        public int $capacity,
        /** submit() calls waiting for room in a full queue. */
        public int $waiting,
        /** Submitted and not yet taken by a job worker. */
        public int $queued,
        /** Taken by a job worker and not yet ended. */
        public int $running,
        public int $submitted,
        /** Ended with a result. */
        public int $completed,
        /** Ended with the task's own exception. */
        public int $failed,
        /** Their job worker died under them. */
        public int $crashed,
        /** Ran past their time limit (their worker was killed). */
        public int $timedOut,
        /** Withdrawn or no longer awaited because the caller's cancellation came first. */
        public int $cancelled,
        /** Refused because the queue stayed full for JobsConfig::$queueWait seconds. */
        public int $rejected,
        /** Not run because the job workers could not be reached, or a connection broke the protocol. */
        public int $unavailable,
        /** Seconds from submit() to a worker taking the task, summed over the tasks taken. */
        public float $queueSeconds,
        /** Seconds the tasks ran in their workers, summed over the tasks that ended with an outcome. */
        public float $runSeconds,
        public float $maxQueueSeconds,
        public float $maxRunSeconds,
    ) {
    }

    /** @return array<string, int|float> */
    public function toArray(): array
    {
        return \get_object_vars($this);
    }
}
