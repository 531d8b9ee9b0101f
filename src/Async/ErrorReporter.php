<?php

declare(strict_types=1);

namespace Bobbin\Async;

use Closure;
use Revolt\EventLoop;
use Throwable;

/**
 * Where errors go that nobody can catch: a task's exception that was never awaited, or an
 * exception escaping a loop callback. They are reported and the loop goes on; one failing task
 * never stops the others.
 */
final class ErrorReporter
{
    /** @var (Closure(Throwable, string): void)|null */
    private static ?Closure $handler = null;
    private static bool $installedOnLoop = false;

    /** @param (Closure(Throwable, string): void)|null $handler null restores the default (stderr) */
    public static function setHandler(?Closure $handler): void
    {
        self::$handler = $handler;
        self::installOnLoop();
    }

    public static function report(Throwable $error, string $context = 'Uncaught error in the event loop'): void
    {
        if (self::$handler !== null) {
            try {
                (self::$handler)($error, $context);

                return;
            } catch (Throwable $handlerError) {
                $error = $handlerError;
                $context = 'The error handler itself failed';
            }
        }
        $line = \sprintf(
            '[bobbin] %s: %s: %s in %s:%d',
            $context,
            $error::class,
            $error->getMessage(),
            $error->getFile(),
            $error->getLine(),
        );
        // STDERR exists only in the CLI; under PHP-FPM error_log() reaches the pool's log.
        if (\defined('STDERR')) {
            \fwrite(\STDERR, $line . "\n");
        } else {
            \error_log($line);
        }
    }

    /** Routes exceptions escaping loop callbacks here instead of stopping EventLoop::run(). */
    public static function installOnLoop(): void
    {
        if (self::$installedOnLoop && EventLoop::getErrorHandler() !== null) {
            return;
        }
        self::$installedOnLoop = true;
        EventLoop::setErrorHandler(static fn (Throwable $e) => self::report($e));
    }
}
