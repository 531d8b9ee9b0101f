<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * One stretch in which a single fiber, callback or microtask held the loop without yielding
 * for at least the threshold it was watched with, seen after the fact, when it let go
 * (BobbinDriver::reportHolds()): nothing was interrupted to find it.
 */
final readonly class LoopHold
{
    /**
     * @param \Closure|null $callback the callback or microtask that ran (null: a fiber the loop resumed)
     * @param object|null $task the fiber the code ran in; compared by identity to find the
     *        request it serves (for a callback, the loop's callback fiber, which a task may have taken)
     * @param int $since hrtime (ns) at which that code took the loop (BlockedCode::$since of a probe in the same hold)
     */
    public function __construct(
        public float $seconds,
        public ?\Closure $callback,
        public ?object $task,
        public int $since,
    ) {
    }

    /** Where the callback was written ("file:line"), '' for a fiber. */
    public function callbackOrigin(): string
    {
        if ($this->callback === null) {
            return '';
        }
        $function = new \ReflectionFunction($this->callback);

        return $function->getFileName() . ':' . (int) $function->getStartLine();
    }
}
