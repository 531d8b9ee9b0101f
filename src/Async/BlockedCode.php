<?php

declare(strict_types=1);

namespace Bobbin\Async;

/**
 * What BlockProbe found holding the loop: for how long so far, where it was, its callers (up to
 * the loop's own frames, which are left out), and whose it is.
 */
final readonly class BlockedCode
{
    /**
     * @param string $file where the code was when the probe came ('' inside an internal function)
     * @param list<array{file?: string, line?: int, function: string, class?: string, type?: string}> $trace
     *        the calls that led there, innermost first (debug_backtrace()'s shape: each frame's
     *        file and line are those of its call)
     * @param object|null $task the fiber running that code (null: the loop's own code in {main});
     *        compared by identity to find the request it serves
     * @param int $since hrtime (ns) at which that code took the loop: names the hold (LoopHold::$since)
     * @param float $turnSeconds how long the loop's turn had run by then (at least $heldSeconds:
     *        the loop's own work and other code may have run in it before this code)
     */
    public function __construct(
        public float $heldSeconds,
        public string $file,
        public int $line,
        public array $trace,
        public ?object $task,
        public int $since,
        public float $turnSeconds,
    ) {
    }
}
