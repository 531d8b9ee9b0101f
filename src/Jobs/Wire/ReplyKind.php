<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Wire;

/** What a job worker says on a task's connection. */
enum ReplyKind
{
    /** It took the task and runs it now (carries its pid). */
    case Started;
    /** The task ended: a result or the task's exception. */
    case Outcome;
    /** The worker is dying while running the task (a fatal error, exit()): its last words. */
    case Crashed;
}
