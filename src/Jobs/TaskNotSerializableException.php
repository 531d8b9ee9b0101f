<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * Thrown by submit() for a task that cannot cross to another process (a closure, a resource, a
 * connection object somewhere in its properties): nothing was sent. $path names the value.
 */
final class TaskNotSerializableException extends JobException
{
    public function __construct(public readonly string $taskClass, public readonly string $path, string $what, ?\Throwable $previous = null)
    {
        parent::__construct(\sprintf(
            'The task %s cannot be sent to a job worker: %s %s. A task carries plain data; open resources and connections inside run()',
            $taskClass,
            $path,
            $what,
        ), 0, $previous);
    }
}
