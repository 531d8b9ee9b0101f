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
    /** @param Closure(int): void $handler receives the signal number */
    public static function on(int $signal, Closure $handler): string
    {
        ErrorReporter::installOnLoop();

        return EventLoop::unreference(EventLoop::onSignal($signal, static fn (string $id, int $signo) => $handler($signo)));
    }

    public static function off(string $id): void
    {
        EventLoop::cancel($id);
    }
}
