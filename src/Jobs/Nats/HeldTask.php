<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Async\CancellationSource;
use Bobbin\Nats\JetStream\JetStreamMessage;

/**
 * @internal a task a NATS job worker holds (queued for its local job workers or running): whom
 * to tell it is alive (signed for the task's id), and for a durable one the message to keep in progress
 */
final class HeldTask
{
    public readonly CancellationSource $withdraw;

    public function __construct(public readonly string $taskId, public readonly ?string $replyTo, public readonly ?JetStreamMessage $message = null)
    {
        $this->withdraw = new CancellationSource();
    }
}
