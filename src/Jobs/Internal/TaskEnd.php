<?php

declare(strict_types=1);

namespace Bobbin\Jobs\Internal;

/** @internal how a submitted task ended, for the counters */
enum TaskEnd
{
    case Completed;
    case Failed;
    case Crashed;
    case TimedOut;
    case Cancelled;
    case Unavailable;
}
