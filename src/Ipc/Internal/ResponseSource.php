<?php

declare(strict_types=1);

namespace Bobbin\Ipc\Internal;

use Bobbin\Async\Cancellation;

/**
 * What ResponseRouter's leader reads from: a connection. Passed to every await() instead of a
 * closure kept in a property, which would tie the connection to itself (a cycle only the
 * garbage collector frees: one per reconnect, and its mapping and buffers until a GC run).
 *
 * @internal
 */
interface ResponseSource
{
    /**
     * Reads whatever arrives next (waiting for it) and calls ResponseRouter::deliver() for each
     * response; throws when the connection is gone.
     */
    public function pump(?Cancellation $cancellation): void;
}
