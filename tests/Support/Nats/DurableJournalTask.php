<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Nats;

use Bobbin\Jobs\Delivery;
use Bobbin\Jobs\DurableTask;

/**
 * A durable task that notes "start KEY ATTEMPT PID" in $journal, sleeps, then notes "end …" and
 * answers where and on which attempt it ran.
 */
final class DurableJournalTask implements DurableTask
{
    public function __construct(private readonly string $key, private readonly float $seconds, private readonly string $journal)
    {
    }

    public function idempotencyKey(): string
    {
        return $this->key;
    }

    /** @return array{key: string, attempt: int, pid: int} */
    public function run(): array
    {
        $attempt = Delivery::current()?->attempt ?? 0;
        $pid = (int) \getmypid();
        \file_put_contents($this->journal, "start {$this->key} $attempt $pid\n", \FILE_APPEND);
        \usleep((int) ($this->seconds * 1e6));
        \file_put_contents($this->journal, "end {$this->key} $attempt $pid\n", \FILE_APPEND);

        return ['key' => $this->key, 'attempt' => $attempt, 'pid' => $pid];
    }
}
