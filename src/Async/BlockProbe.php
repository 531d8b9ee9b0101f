<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Bobbin\Async\Loop\BobbinDriver;
use Closure;
use Revolt\EventLoop;

/**
 * Takes the PHP stack of the code holding the loop when a watchdog outside the process signals
 * it (the master, which sees the loop's heartbeat: LoopHeartbeat). The signal must interrupt
 * code that never yields, so this turns on pcntl_async_signals() for the process: a handler then
 * runs at the next PHP statement, inside the fiber that was running.
 *
 * The interruption is not free of effects on the blocked code: a sleep(), usleep() or
 * time_nanosleep() in progress returns early (the kernel ends it at the signal); reads, writes,
 * database calls and stream waits resume (SA_RESTART, or PHP retries them). That is why a
 * server installs it only when asked (--block-stacks); BobbinDriver::reportHolds() sees the
 * same code after the fact without touching it.
 */
final class BlockProbe
{
    /**
     * Installs the handler for $signal; false where it cannot work (no pcntl, or not Bobbin's
     * loop driver, which alone knows since when the running code has held the loop).
     *
     * @param Closure(BlockedCode): void $report called in the interrupted fiber, between two of its statements
     */
    public static function install(int $signal, Closure $report): bool
    {
        $driver = EventLoop::getDriver();
        if (!$driver instanceof BobbinDriver || !\function_exists('pcntl_async_signals')) {
            return false;
        }
        $loop = \dirname((new \ReflectionClass(BobbinDriver::class))->getFileName() ?: '') . '/';
        $handler = static function () use ($driver, $report, $loop): void {
            $since = $driver->heldSince();
            if ($since === 0) {
                return; // the loop was waiting when the signal came: nothing holds it
            }
            $held = (\hrtime(true) - $since) / 1e9;
            // The turn began when the last poll returned ($polledAt), as the watchdog counts it.
            $turn = \microtime(true) - $driver->polledAt;
            $trace = \debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS);
            // This handler's frame: its call site is where the interrupted code was.
            $here = \array_shift($trace);
            $callers = [];
            foreach ($trace as $frame) {
                if (\str_starts_with($frame['file'] ?? '', $loop) || \str_starts_with($frame['class'] ?? '', 'Bobbin\\Async\\Loop\\')) {
                    break; // the loop's own frames, and those of whoever resumed the fiber
                }
                $callers[] = $frame;
            }
            $report(new BlockedCode($held, $here['file'] ?? '', $here['line'] ?? 0, $callers, \Fiber::getCurrent(), $since, $turn));
        };
        if (!\pcntl_signal($signal, $handler)) {
            return false;
        }
        \pcntl_async_signals(true);
        $driver->timeHandOvers(true);

        return true;
    }

    /** Puts the signal back to its default action (async signals stay on: other handlers may rely on them by now). */
    public static function uninstall(int $signal): void
    {
        \pcntl_signal($signal, \SIG_DFL);
        $driver = EventLoop::getDriver();
        if ($driver instanceof BobbinDriver) {
            $driver->timeHandOvers(false);
        }
    }
}
