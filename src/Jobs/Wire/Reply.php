<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

/** One decoded frame from a job worker. */
final readonly class Reply
{
    public function __construct(
        public ReplyKind $kind,
        public int $workerPid = 0,
        public ?TaskOutcome $outcome = null,
        public string $reason = '',
    ) {
    }
}
