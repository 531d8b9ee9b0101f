<?php

declare(strict_types=1);

namespace Bobbin\Tests\Support\Jobs;

use Bobbin\Jobs\Task;

/** Reports the mark tests/Support/Jobs/bootstrap.php leaves in the job worker (null without it). */
final class BootstrapProbeTask implements Task
{
    /** @return array{bootstrapped: mixed, pid: int} */
    public function run(): array
    {
        return ['bootstrapped' => $GLOBALS['bobbin_test_bootstrapped'] ?? null, 'pid' => (int) \getmypid()];
    }
}
