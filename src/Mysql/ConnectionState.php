<?php

declare(strict_types=1);

namespace Bobbin\Mysql;

enum ConnectionState
{
    /** Ready for the next statement. */
    case Idle;
    /** A caller is running a statement. */
    case Busy;
    /** A statement was abandoned; its cancellation and leftover results are being processed. */
    case Draining;
    /** Closed by its owner or broken; never usable again. */
    case Closed;
}
