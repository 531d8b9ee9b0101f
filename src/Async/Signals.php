<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;

/**
 * POSIX signals (SIGINT, SIGTERM, SIGHUP, …) as loop callbacks, so a handler runs between
 * fibers and never interrupts one mid-statement. Handlers are unreferenced: waiting for a signal
 * alone does not keep the loop running.
 */
final class Signals
{
    /** @var array<string, int> signal number of each handler id */
    private static array $signalOf = [];
    private static ?Closure $placeholder = null;

    /** @param Closure(int): mixed $handler receives the signal number; its return value is ignored */
    public static function on(int $signal, Closure $handler): string
    {
        ErrorReporter::installOnLoop();
        self::catchUntilTheLoopTakesOver($signal);

        // A Revolt callback must return null: wrap, so a handler that returns a value is fine.
        $id = EventLoop::unreference(EventLoop::onSignal($signal, static function (string $id, int $signo) use ($handler): void {
            $handler($signo);
        }));
        self::$signalOf[$id] = $signal;

        return $id;
    }

    public static function off(string $id): void
    {
        EventLoop::cancel($id);
        $signal = self::$signalOf[$id] ?? null;
        unset(self::$signalOf[$id]);
        if ($signal === null || \in_array($signal, self::$signalOf, true)) {
            return;
        }
        // Removed before the loop ever installed its handler: undo the placeholder so the
        // signal gets its default action again rather than being silently swallowed.
        if (self::$placeholder !== null && \pcntl_signal_get_handler($signal) === self::$placeholder) {
            \pcntl_signal($signal, \SIG_DFL);
        }
    }

    /**
     * The loop installs its own handler only at its next tick; until then the default action
     * (for SIGTERM or SIGHUP: death) would apply. A placeholder makes the process catch the
     * signal at once; PHP queues it and the loop's handler, installed in the meantime, receives
     * it at the loop's next dispatch.
     */
    private static function catchUntilTheLoopTakesOver(int $signal): void
    {
        if (!\function_exists('pcntl_signal_get_handler') || \pcntl_signal_get_handler($signal) instanceof Closure) {
            return;
        }
        self::$placeholder ??= static function (): void {
        };
        \pcntl_signal($signal, self::$placeholder);
    }
}
