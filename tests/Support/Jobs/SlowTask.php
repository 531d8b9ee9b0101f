<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\TimeLimitedTask;

/**
 * Sleeps, then answers its id and the pid that ran it. Before sleeping it appends
 * "start ID PID" to $journal (O_APPEND: one line per write, whole), after it "end ID PID", so a
 * test can tell which tasks ran, where, and how often.
 */
final class SlowTask implements TimeLimitedTask
{
    public function __construct(
        public readonly int $id,
        private readonly float $seconds,
        private readonly string $journal = '',
        private readonly float $timeLimit = 60.0,
    ) {
    }

    public function timeLimit(): float
    {
        return $this->timeLimit;
    }

    /** @return array{id: int, pid: int} */
    public function run(): array
    {
        $pid = (int) \getmypid();
        $this->note("start {$this->id} $pid");
        if ($this->seconds > 0) {
            \usleep((int) ($this->seconds * 1e6));
        }
        $this->note("end {$this->id} $pid");

        return ['id' => $this->id, 'pid' => $pid];
    }

    private function note(string $line): void
    {
        if ($this->journal !== '') {
            \file_put_contents($this->journal, $line . "\n", \FILE_APPEND);
        }
    }
}
