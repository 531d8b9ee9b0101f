<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Nats;

/** What a NATS job worker tells the caller of a task. */
enum RemoteReplyKind
{
    /** It holds the task (queued or running) and is alive: sent at once and then every heartbeat. */
    case Alive;
    /** A job worker took the task and runs it now (its pid). */
    case Started;
    /** The task ended: a result or its exception. */
    case Outcome;
    /** The job worker running it died (its last words). */
    case Crashed;
    /** It ran past its time limit; its job worker was killed. */
    case TimedOut;
    /** A job worker without a free slot got it anyway (the server gave it out while that worker was leaving the queue group): offer it again. */
    case Busy;
    /** The job worker could not run it at all (its pool is gone, the result is too large to send). */
    case Refused;
}
