<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Internal;

use Bobbin\Jobs\JobStatistics;

/**
 * The running counts behind JobStatistics. A task moves queued → running → one end; a task that
 * ends before it was taken (cancelled, crashed pool) leaves the queue straight to its end.
 *
 * @internal
 */
final class JobCounters
{
    public int $waiting = 0;
    public int $queued = 0;
    public int $running = 0;
    public int $submitted = 0;
    public int $completed = 0;
    public int $failed = 0;
    public int $crashed = 0;
    public int $timedOut = 0;
    public int $cancelled = 0;
    public int $rejected = 0;
    public int $unavailable = 0;
    public float $queueSeconds = 0.0;
    public float $runSeconds = 0.0;
    public float $maxQueueSeconds = 0.0;
    public float $maxRunSeconds = 0.0;

    public function __construct(private readonly int $capacity)
    {
    }

    public function submitted(): void
    {
        $this->submitted++;
        $this->queued++;
    }

    public function started(float $queueSeconds): void
    {
        $this->queued--;
        $this->running++;
        $this->queueSeconds += $queueSeconds;
        $this->maxQueueSeconds = \max($this->maxQueueSeconds, $queueSeconds);
    }

    public function ran(float $runSeconds): void
    {
        $this->runSeconds += $runSeconds;
        $this->maxRunSeconds = \max($this->maxRunSeconds, $runSeconds);
    }

    /** The task left the queue or its worker for good. */
    public function ended(bool $wasRunning, TaskEnd $end): void
    {
        $wasRunning ? $this->running-- : $this->queued--;
        match ($end) {
            TaskEnd::Completed => $this->completed++,
            TaskEnd::Failed => $this->failed++,
            TaskEnd::Crashed => $this->crashed++,
            TaskEnd::TimedOut => $this->timedOut++,
            TaskEnd::Cancelled => $this->cancelled++,
            TaskEnd::Unavailable => $this->unavailable++,
        };
    }

    public function snapshot(): JobStatistics
    {
        return new JobStatistics(
            $this->capacity,
            $this->waiting,
            $this->queued,
            $this->running,
            $this->submitted,
            $this->completed,
            $this->failed,
            $this->crashed,
            $this->timedOut,
            $this->cancelled,
            $this->rejected,
            $this->unavailable,
            $this->queueSeconds,
            $this->runSeconds,
            $this->maxQueueSeconds,
            $this->maxRunSeconds,
        );
    }
}
