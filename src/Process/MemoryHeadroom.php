<?php

declare(strict_types=1);

namespace Bobbin\Process;

/**
 * Room for a process's last words (a shutdown function that reports, answers or tells its
 * master) when an exhausted memory_limit is what ended it: the limit is raised by one chunk of
 * PHP's allocator when the words begin. Raising it, rather than holding back a string made at
 * start and freed then, costs no memory until it is needed: a megabyte held back was a megabyte
 * of every serving process's resident memory (docs/HTTP.md, "Memory of a hello server, issue 41").
 */
final class MemoryHeadroom
{
    /** One 2 MiB chunk: a heap at its limit grows by whole chunks, so less would give no room. */
    public const BYTES = 2 << 20;

    private function __construct()
    {
    }

    /**
     * Made now, while memory is there to load this class; call the closure first thing in the
     * shutdown function. Without a memory_limit (-1) it leaves the setting alone.
     *
     * @return \Closure(): void
     */
    public static function forLastWords(): \Closure
    {
        return static function (): void {
            $limit = \ini_parse_quantity((string) \ini_get('memory_limit'));
            if ($limit > 0) {
                \ini_set('memory_limit', (string) ($limit + self::BYTES));
            }
        };
    }
}
