<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * Process-wide state that must belong to one fiber at a time (PHP's header list, a framework's
 * "current request"): taken out when a fiber starts to wait, put back when it continues, so the
 * fibers that run meanwhile neither see it nor change it. Register with Async::keepPerFiber().
 *
 * Kept at the waits of Bobbin's own loop driver; under another Revolt driver (BOBBIN_LOOP_DRIVER=
 * revolt) it is not, and such state is shared between the fibers of a process.
 */
interface FiberLocalState
{
    /**
     * The current fiber is about to wait: take its part of the state out of the process, leave
     * the process as a fresh fiber would find it, and return what restore() needs (null: nothing).
     */
    public function save(): mixed;

    /** The fiber continues: put back what save() returned for it (not called when that was null). */
    public function restore(mixed $saved): void;
}
