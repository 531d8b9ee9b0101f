<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** The caller's side of the jobs: its queue and the defaults every task gets. */
final readonly class JobsConfig
{
    public function __construct(
        /** Tasks one process may have submitted and not yet seen end (queued + running); submit() waits beyond. */
        public int $queueCapacity = 64,
        /** Seconds submit() waits for room in a full queue before JobQueueFullException (its cancellation may end it sooner). */
        public float $queueWait = 10.0,
        /** Seconds a task may run before its worker is killed (TimeLimitedTask overrides it); 0 for none. */
        public float $timeLimit = 60.0,
        /** Largest task or result in bytes, serialized. */
        public int $maxPayload = 64 * 1024 * 1024,
    ) {
        if ($queueCapacity < 1) {
            throw new \InvalidArgumentException('The job queue needs room for at least one task');
        }
        if (!($queueWait >= 0.0) || !\is_finite($queueWait)) {
            throw new \InvalidArgumentException('The queue wait must be a finite number of seconds, 0 or more');
        }
        if (!($timeLimit >= 0.0) || !\is_finite($timeLimit)) {
            throw new \InvalidArgumentException('The time limit must be 0 (none) or a positive number of seconds');
        }
        if ($maxPayload < 1024 || $maxPayload > 1 << 30) {
            throw new \InvalidArgumentException('The largest payload must lie between 1 KiB and 1 GiB');
        }
    }
}
