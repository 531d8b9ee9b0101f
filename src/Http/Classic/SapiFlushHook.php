<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Closure;

/**
 * Tells the process when PHP code calls flush(): PHP's flush() asks the SAPI to flush
 * (`sapi_module.flush`, the eighth pointer of `sapi_module_struct` in every PHP 8, main/SAPI.h),
 * which the CLI does on its stdout. With a handler of ours there (through FFI), the output so
 * far can go to the client at once, as PHP-FPM sends it to nginx. Two users: the isolated legacy
 * mode's script process (install(), in the child only), and a worker's framework streamed
 * responses (OutputCapture::redirect() with a flush handler, installed for the worker's life).
 * Without FFI nothing is installed and flush() does what the CLI does.
 *
 * The CLI flushes implicitly after each write that reaches it (implicit_flush=1), so the handler
 * also runs after output that nothing captured: it must be cheap and must never throw (a throw
 * from an FFI callback is fatal).
 *
 * @internal used by IsolatedLegacyLoop and OutputCapture
 */
final class SapiFlushHook
{
    private const SAPI_HEAD = 'typedef void (*bobbin_sapi_flush)(void *server_context);'
        . ' typedef struct { void *before_flush[7]; bobbin_sapi_flush flush; } bobbin_sapi_module_flush_head;'
        . ' extern bobbin_sapi_module_flush_head sapi_module;';

    /** Parsed once in the parent, so a child only assigns. */
    private static ?\FFI $ffi = null;
    /** The SAPI's own handler, put back at the worker's shutdown (installForProcess()). */
    private static ?\FFI\CData $original = null;

    private function __construct()
    {
    }

    public static function bind(): bool
    {
        if (self::$ffi !== null) {
            return true;
        }
        try {
            self::$ffi = \extension_loaded('ffi') ? \FFI::cdef(self::SAPI_HEAD) : null;
        } catch (\Throwable) {
            self::$ffi = null;
        }

        return self::$ffi !== null;
    }

    /**
     * In a script's process: $onFlush runs at each flush() of the script. The process ends with
     * _exit(), so PHP never calls the handler after its FFI scope is gone.
     *
     * @param Closure(): void $onFlush
     */
    public static function install(Closure $onFlush): void
    {
        if (self::$ffi === null) {
            return;
        }
        // @phpstan-ignore property.notFound (a C variable of the FFI scope)
        self::$ffi->sapi_module->flush = static function () use ($onFlush): void {
            $onFlush();
        };
    }

    /**
     * In a process that ends normally (a worker): $onFlush runs at each flush() until the
     * shutdown, where the SAPI's own handler goes back before PHP flushes its last output and
     * frees the FFI callback. False without FFI.
     *
     * @param Closure(): void $onFlush must not throw
     */
    public static function installForProcess(Closure $onFlush): bool
    {
        if (!self::bind() || self::$ffi === null) {
            return false;
        }
        try {
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            $original = self::$ffi->sapi_module->flush;
            self::install($onFlush);
        } catch (\Throwable) {
            return false;
        }
        if (self::$original === null && $original instanceof \FFI\CData) {
            self::$original = $original;
            \register_shutdown_function(static function (): void {
                if (self::$ffi !== null && self::$original !== null) {
                    // @phpstan-ignore property.notFound (a C variable of the FFI scope)
                    self::$ffi->sapi_module->flush = self::$original;
                }
            });
        }

        return true;
    }
}
