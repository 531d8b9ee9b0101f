<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

use Bobbin\Jobs\Security\Refusals;
use Bobbin\Metrics\Collector;
use Bobbin\Metrics\MetricFamily;
use Bobbin\Metrics\MetricType;

/**
 * The process's jobs (Jobs::shared()) for /metrics: what waits, is queued and runs now, how tasks
 * ended, and the time they spent queued and running (sums: a rate of the sum over a rate of the
 * count is the average). Summed over the workers by the master.
 */
final class JobMetrics implements Collector
{
    public function collect(): iterable
    {
        $s = Jobs::shared()->statistics();
        yield new MetricFamily('bobbin_jobs_queue_capacity', MetricType::Gauge, 'Tasks a worker may have queued or running in the job workers (--job-queue)', [[[], (float) $s->capacity]]);
        yield new MetricFamily('bobbin_jobs', MetricType::Gauge, 'Tasks now: waiting for room in a full queue, queued for a job worker, running', [
            [['state' => 'waiting'], (float) $s->waiting],
            [['state' => 'queued'], (float) $s->queued],
            [['state' => 'running'], (float) $s->running],
        ]);
        yield new MetricFamily('bobbin_jobs_submitted_total', MetricType::Counter, 'Tasks submitted', [[[], (float) $s->submitted]]);
        yield new MetricFamily('bobbin_jobs_ended_total', MetricType::Counter, 'Tasks ended, by outcome', [
            [['outcome' => 'completed'], (float) $s->completed],
            [['outcome' => 'failed'], (float) $s->failed],
            [['outcome' => 'crashed'], (float) $s->crashed],
            [['outcome' => 'timed_out'], (float) $s->timedOut],
            [['outcome' => 'cancelled'], (float) $s->cancelled],
            [['outcome' => 'rejected'], (float) $s->rejected],
            [['outcome' => 'unavailable'], (float) $s->unavailable],
        ]);
        yield new MetricFamily(
            'bobbin_jobs_refused_messages_total',
            MetricType::Counter,
            'Job messages (tasks, results, answers) refused unread: unsigned, signed with an unknown key, a bad signature, or past their deadline',
            \array_map(static fn (string $reason, int $count): array => [['reason' => $reason], (float) $count], \array_keys($refused = Refusals::shared()->counts()), $refused),
        );
        yield new MetricFamily('bobbin_jobs_queue_seconds_total', MetricType::Counter, 'Seconds tasks waited from submit() until a job worker took them, summed', [[[], $s->queueSeconds]]);
        yield new MetricFamily('bobbin_jobs_run_seconds_total', MetricType::Counter, 'Seconds tasks ran in job workers, summed', [[[], $s->runSeconds]]);
        yield new MetricFamily('bobbin_jobs_max_queue_seconds', MetricType::Gauge, 'The longest a task waited for a job worker since the process started', [[[], $s->maxQueueSeconds]], true);
        yield new MetricFamily('bobbin_jobs_max_run_seconds', MetricType::Gauge, 'The longest a task ran since the process started', [[[], $s->maxRunSeconds]], true);
    }
}
