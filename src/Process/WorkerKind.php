<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * What a WorkerGroup keeps alive: HTTP workers or job workers. The group's decisions are the
 * same for both; what differs is what "has served" means and how the log names them.
 */
enum WorkerKind
{
    /** Serve HTTP requests; served once their stats count a request. */
    case Http;
    /** Run tasks; a job worker that is ready takes tasks, so being ready counts as serving. */
    case Job;

    /** The noun the log uses, lower case ("worker", "job worker"). */
    public function noun(): string
    {
        return match ($this) {
            self::Http => 'worker',
            self::Job => 'job worker',
        };
    }

    /** The noun at the start of a log line ("Worker", "Job worker"). */
    public function nounAtStart(): string
    {
        return \ucfirst($this->noun());
    }

    /**
     * Whether the worker had begun its work by its last report: its death is then that work's
     * failure (replaced at once), never a failed boot (RestartPolicy).
     */
    public function hasServed(WorkerHandle $worker): bool
    {
        return match ($this) {
            self::Http => $worker->hasServed(),
            self::Job => $worker->readyAt !== null,
        };
    }

    /** The log's words for a reload's steps: {count} new workers, {old} old ones, {phase}. */
    public function reloadWords(ReloadStep $step): string
    {
        return match ($this) {
            self::Http => match ($step) {
                ReloadStep::NotRunning => 'SIGHUP ignored: the master is {phase}',
                ReloadStep::UnderWay => 'SIGHUP ignored: a reload is already under way',
                ReloadStep::Starting => 'Reloading: starting {count} new worker(s) with the application as it is on disk now',
                ReloadStep::Complete => 'Reload complete: {count} new worker(s) serve; {old} old one(s) drain',
                ReloadStep::Failed => 'Reload failed, the running workers stay: {reason}',
            },
            self::Job => match ($step) {
                ReloadStep::NotRunning => 'Job workers not reloaded: they are {phase}',
                ReloadStep::UnderWay => 'Job workers not reloaded: a reload of them is already under way',
                ReloadStep::Starting => 'Reloading: starting {count} new job worker(s)',
                ReloadStep::Complete => 'Job workers reloaded: {count} new one(s) take tasks; {old} old one(s) finish theirs',
                ReloadStep::Failed => 'Reload of the job workers failed, the running ones stay: {reason}',
            },
        };
    }
}
