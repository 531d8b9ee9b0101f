<?php

declare(strict_types=1);

namespace Bobbin\Cli;

/** The exit codes of `bin/bobbin` (../shared/contracts/entry-points.md). */
enum ExitCode: int
{
    /** Done, or stopped gracefully. */
    case Ok = 0;
    /** A runtime failure: address in use, pid file not writable, a master that could not start its workers. */
    case Runtime = 1;
    /** A usage error: bad option or value, missing APP_FILE, an APP_FILE that returns no handler. */
    case Usage = 2;
}
