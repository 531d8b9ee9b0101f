<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** A worker's life as the master sees it. */
enum WorkerState: string
{
    /** Forked; loading the application, not yet reported ready. */
    case Booting = 'booting';
    /** Serving. */
    case Ready = 'ready';
    /** Asked to be replaced (max requests or memory); serves until its replacement is ready. */
    case Retiring = 'retiring';
    /** Sent SIGTERM: accepts nothing more, finishes its requests, exits. */
    case Draining = 'draining';
}
