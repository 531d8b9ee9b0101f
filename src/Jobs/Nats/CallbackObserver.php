<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Jobs\Transport\TaskObserver;
use Closure;

/** @internal passes "a job worker took the task" on to a closure */
final class CallbackObserver implements TaskObserver
{
    /** @param Closure(int): void $started */
    public function __construct(private readonly Closure $started)
    {
    }

    public function started(int $workerPid): void
    {
        ($this->started)($workerPid);
    }
}
