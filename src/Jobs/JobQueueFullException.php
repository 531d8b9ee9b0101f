<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/** submit() waited the longest it may (JobsConfig::$queueWait) and the queue stayed full: nothing was sent. */
final class JobQueueFullException extends JobException
{
}
