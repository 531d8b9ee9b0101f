<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * A task that must survive a crash: over NATS (--jobs-transport=nats://…) it travels through a
 * JetStream stream and runs at least once — a job worker that dies before it acknowledges the
 * task has it delivered again, to itself or another. So it may run twice: Delivery::current()
 * tells a run which attempt it is, and idempotencyKey() names the job (the same key submitted
 * twice within the stream's duplicate window is stored once), for the task to record that it
 * ran. On the local pool and in-process it runs as any task (at most once).
 */
interface DurableTask extends Task
{
    /** Names this job for de-duplication and for the task to detect a second run (e.g. "invoice-42-email"). */
    public function idempotencyKey(): string;
}
