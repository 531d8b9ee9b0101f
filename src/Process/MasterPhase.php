<?php

declare(strict_types=1);

namespace Bobbin\Process;

/** Where the master is in its own life. */
enum MasterPhase
{
    /** The first generation is booting; any failure ends the master. */
    case Starting;
    /** Serving; dead workers are replaced, SIGHUP reloads. */
    case Running;
    /** Waiting for the workers to drain and exit. */
    case Stopping;
}
