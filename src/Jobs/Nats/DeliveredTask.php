<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

use Bobbin\Jobs\Delivery;
use Bobbin\Jobs\Execution\UnknownTaskClassException;
use Bobbin\Jobs\Task;

/**
 * A durable task as the NATS job worker hands it to its local job worker: the task, still
 * serialized, with which delivery this is, so that Delivery::current() can tell the task.
 *
 * @internal
 */
final class DeliveredTask implements Task
{
    public function __construct(
        private readonly string $idempotencyKey,
        private readonly int $attempt,
        private readonly string $class,
        private readonly string $payload,
    ) {
    }

    public function run(): mixed
    {
        $task = @\unserialize($this->payload);
        if ($task instanceof \__PHP_Incomplete_Class || !$task instanceof Task) {
            throw new UnknownTaskClassException(\sprintf(
                'The class %s is not known in the job worker: make it autoloadable there (--job-bootstrap)',
                $this->class,
            ));
        }

        return Delivery::during(new Delivery($this->idempotencyKey, $this->attempt), static fn (): mixed => $task->run());
    }
}
