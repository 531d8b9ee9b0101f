<?php

declare(strict_types=1);

namespace Bobbin\Process;

use Closure;

/**
 * Shutdown functions of the process that registers them, and of no process forked from it
 * later: a legacy script's process (the isolated legacy mode) is a copy of its worker, and its
 * end must not report the worker's end to the master, answer the worker's connections or
 * remove the pid file.
 */
final class ProcessShutdown
{
    private function __construct()
    {
    }

    public static function register(Closure $callback): void
    {
        $pid = \getmypid();
        \register_shutdown_function(static function () use ($pid, $callback): void {
            if (\getmypid() === $pid) {
                $callback();
            }
        });
    }
}
