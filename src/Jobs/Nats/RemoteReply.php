<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Jobs\Wire\TaskOutcome;

/** One decoded message from a NATS job worker about a task. */
final readonly class RemoteReply
{
    public function __construct(
        public RemoteReplyKind $kind,
        public int $workerPid = 0,
        public ?TaskOutcome $outcome = null,
        /** Last words, a timeout's or a refusal's message, or who holds the task (Alive). */
        public string $text = '',
    ) {
    }
}
