<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

use Bobbin\Async\Timeout;

/** The task ran past its time limit: its job worker was killed (and is replaced). */
final class JobTimeoutException extends JobException implements Timeout
{
    public function __construct(string $message, public readonly int $workerPid = 0)
    {
        parent::__construct($message);
    }
}
