<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

use Closure;

/**
 * Tells a script's process when the script calls flush() (the isolated legacy mode): PHP's
 * flush() asks the SAPI to flush (`sapi_module.flush`, the eighth pointer of
 * `sapi_module_struct` in every PHP 8, main/SAPI.h), which the CLI does on its stdout. With a
 * handler of ours there (through FFI, set in the child only), the output so far goes to the
 * parent and on to the client at once, as PHP-FPM sends it to nginx.
 *
 * @internal used by IsolatedLegacyLoop
 */
final class SapiFlushHook
{
    private const SAPI_HEAD = 'typedef void (*bobbin_sapi_flush)(void *server_context);'
        . ' typedef struct { void *before_flush[7]; bobbin_sapi_flush flush; } bobbin_sapi_module_flush_head;'
        . ' extern bobbin_sapi_module_flush_head sapi_module;';

    /** Parsed once in the parent, so a child only assigns. */
    private static ?\FFI $ffi = null;

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
}
