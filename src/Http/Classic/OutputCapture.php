<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Bobbin\Async\Async;
use Bobbin\Async\ErrorReporter;
use Psr\Log\LoggerInterface;

/**
 * Keeps what request code echoes (echo, print, printf, var_dump, a closing "?>" with text
 * after it) away from the server's stdout and in its own request: one output handler at the
 * bottom of PHP's output stack, with a chunk size of one byte so it sees every write at once,
 * hands each write to the request whose fiber made it. Output made outside any request (boot
 * code) goes to stdout as before.
 *
 * Because nothing reaches the SAPI, PHP never marks headers as sent: header() keeps working
 * after an echo, as under PHP-FPM with an output buffer, and one stray echo cannot break every
 * later request of the worker. An output buffer the application opens itself with ob_start()
 * belongs to the whole process: a request that suspends while holding one shares it with the
 * requests that run meanwhile (one request at a time — the legacy mode, the framework adapters'
 * default — is exact).
 *
 * A fiber's output can also go somewhere as it is written (redirect()): the framework adapters'
 * streamed responses send what their callback echoes while it runs.
 *
 * @internal part of the capture of PHP's own response functions, and of the framework adapters'
 *           streamed responses
 */
final class OutputCapture
{
    /** @var \WeakMap<\Fiber<mixed, mixed, mixed, mixed>, CapturedOutput>|null */
    private static ?\WeakMap $byFiber = null;
    /** What {main} writes while a request runs there (the legacy mode's script loop). */
    private static ?CapturedOutput $main = null;
    /** Servers of this process that installed the handler (it goes when the last one releases it). */
    private static int $users = 0;
    /** The output level the handler sits at. */
    private static int $level = 0;
    /** Whether flush() reaches flushed() (SapiFlushHook; null until a redirect asks for it). */
    private static ?bool $flushHooked = null;

    private function __construct()
    {
    }

    /** Installs the handler once per process (at the bottom of the output stack). */
    public static function install(): void
    {
        if (OutputCapture::$users++ > 0) {
            return;
        }
        OutputCapture::$byFiber = new \WeakMap();
        \ob_start(self::route(...), 1);
        OutputCapture::$level = \ob_get_level();
    }

    /** A server that installed the handler is done; the last one removes it (if it is still on top). */
    public static function release(): void
    {
        if (OutputCapture::$users === 0 || --OutputCapture::$users > 0) {
            return;
        }
        if (\ob_get_level() === OutputCapture::$level) {
            \ob_end_flush();
        }
        OutputCapture::$byFiber = null;
    }

    /**
     * Captures what the current fiber writes for as long as it lives, into one object that the
     * caller empties after each request (a connection's fiber serves request after request); null
     * outside a fiber or before install(). Called per request: the return type is the
     * analyser's (docs/ASYNC.md, Rules).
     *
     * @return ?CapturedOutput
     */
    public static function claim()
    {
        // To key the capture by, never resumed; Async::currentFiber() would be a static call more.
        /** @var \Fiber<mixed, mixed, mixed, mixed>|null $fiber */
        $fiber = \Fiber::getCurrent();
        if ($fiber === null || OutputCapture::$byFiber === null) {
            return null;
        }

        return OutputCapture::$byFiber[$fiber] ??= new CapturedOutput();
    }

    /** Starts capturing what the current fiber (or {main}) writes; null before install(). */
    public static function begin(): ?CapturedOutput
    {
        if (OutputCapture::$byFiber === null) {
            return null;
        }
        $fiber = Async::currentFiber();
        if ($fiber === null) {
            return OutputCapture::$main = new CapturedOutput();
        }

        return OutputCapture::$byFiber[$fiber] = new CapturedOutput();
    }

    /**
     * Sends what the current fiber writes from now on to $sink, each write as it is made (the
     * sink runs inside PHP's output handler: it must not echo, wait or throw); end() stops it.
     * $onFlush runs at each flush() of the fiber, when FFI lets the SAPI's flush be hooked
     * (flushHooked() says). Null outside a fiber or before install(): nothing is redirected.
     *
     * @param \Closure(string): void $sink
     * @param (\Closure(): void)|null $onFlush must not echo, wait or throw
     */
    public static function redirect(\Closure $sink, ?\Closure $onFlush = null): ?CapturedOutput
    {
        $fiber = Async::currentFiber();
        if ($fiber === null || OutputCapture::$byFiber === null) {
            return null;
        }
        if ($onFlush !== null) {
            OutputCapture::$flushHooked ??= SapiFlushHook::installForProcess(self::flushed(...));
        }

        return OutputCapture::$byFiber[$fiber] = new CapturedOutput($sink, $onFlush);
    }

    /** Whether a redirect's $onFlush runs at flush() (FFI is there); null before one asked. */
    public static function flushHooked(): ?bool
    {
        return OutputCapture::$flushHooked;
    }

    /**
     * The SAPI's flush (SapiFlushHook): PHP's flush(), and the CLI's implicit flush after output
     * nothing captured. Only a fiber redirected with a flush handler does anything.
     */
    private static function flushed(): void
    {
        $fiber = Async::currentFiber();
        $onFlush = $fiber === null || OutputCapture::$byFiber === null ? null : (OutputCapture::$byFiber[$fiber] ?? null)?->onFlush;
        if ($onFlush === null) {
            return;
        }
        try {
            $onFlush();
        } catch (\Throwable $error) {
            // A throw from an FFI callback would be fatal: the output waits for the reader instead.
            ErrorReporter::report($error, 'Sending flushed output failed');
        }
    }

    /** Ends capturing for $output's fiber (the current one) and returns what was written. */
    public static function end(?CapturedOutput $output): string
    {
        if ($output === null) {
            return '';
        }
        $fiber = Async::currentFiber();
        if ($fiber === null) {
            OutputCapture::$main = null;
        } elseif (OutputCapture::$byFiber !== null) {
            unset(OutputCapture::$byFiber[$fiber]);
        }

        return $output->contents;
    }

    private static function route(string $chunk, int $phase): string
    {
        $fiber = Async::currentFiber();
        $capture = $fiber === null ? OutputCapture::$main : (OutputCapture::$byFiber[$fiber] ?? null);
        if ($capture === null) {
            return $chunk;
        }
        if ($capture->sink !== null) {
            ($capture->sink)($chunk);

            return '';
        }
        $capture->contents .= $chunk;

        return '';
    }
}
