<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Transport;

/** Told by a transport when a worker takes a task (the end of its time in the queue). */
interface TaskObserver
{
    public function started(int $workerPid): void;
}
