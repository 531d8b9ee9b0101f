<?php

declare(strict_types=1);

namespace Bobbin\Jobs;

/**
 * The task threw in its job worker. The original exception cannot be rebuilt in the caller (its
 * class may not even exist here), so this one carries it: remoteClass(), remoteMessage(),
 * remoteTrace() and the rest in $remote.
 */
final class TaskFailedException extends JobException
{
    public function __construct(public readonly string $taskClass, public readonly RemoteError $remote)
    {
        parent::__construct(\sprintf(
            'The task %s failed: %s: %s (%s:%d)',
            $taskClass,
            $remote->class,
            $remote->message,
            $remote->file,
            $remote->line,
        ));
    }

    /** The class of the exception the task threw, e.g. "InvalidArgumentException". */
    public function remoteClass(): string
    {
        return $this->remote->class;
    }

    public function remoteMessage(): string
    {
        return $this->remote->message;
    }

    /** The task's stack trace in the job worker, as Throwable::getTraceAsString() wrote it there. */
    public function remoteTrace(): string
    {
        return $this->remote->trace;
    }

    /** Whether the task threw an exception of $class or of a subclass (known to this process). */
    public function isRemote(string $class): bool
    {
        return \is_a($this->remote->class, $class, true);
    }
}
