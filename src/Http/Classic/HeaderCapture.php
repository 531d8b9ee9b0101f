<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Bobbin\Async\Async;

/**
 * Lets header(), setcookie() and header_remove() work in the CLI as under PHP-FPM: PHP's CLI
 * SAPI drops every header, because its header handler says "do not keep it". With a handler of
 * ours in its place (one write into `sapi_module` through FFI, once per process), which says
 * "keep it" and notes that the list changed, PHP keeps the headers in its list, headers_list()
 * reads them and the server takes them into the response.
 *
 * The list follows the fiber that set it (HeaderListPerFiber): concurrent requests each keep
 * their own.
 *
 * Only the head of `sapi_module_struct` is declared: eleven pointers, then `header_handler`, as
 * in every PHP 8 (main/SAPI.h). Without FFI (ffi.enable=false) it stays off and says so.
 *
 * @internal part of the capture of PHP's own response functions
 */
final class HeaderCapture
{
    private const SAPI_HEAD = 'typedef int (*bobbin_header_handler)(void *header, int op, void *headers);'
        . ' typedef struct { void *before_header_handler[11]; bobbin_header_handler header_handler; } bobbin_sapi_module_head;'
        . ' extern bobbin_sapi_module_head sapi_module;';
    /** What the handler answers: keep the header (SAPI_HEADER_ADD). */
    private const SAPI_HEADER_ADD = 1;

    /**
     * Whether header(), setcookie() or header_remove() ran since the list was last taken: the
     * handler sets it, so a request that set no header costs no headers_list() call.
     */
    public static bool $dirty = false;
    private static ?bool $enabled = null;
    /** Kept for the life of the process: the handler's C trampoline lives as long as its FFI scope. */
    private static ?\FFI $ffi = null;

    private function __construct()
    {
    }

    /** Turns capture on for this process; false when FFI is not available (headers are then dropped as PHP's CLI does). */
    public static function enable(): bool
    {
        if (self::$enabled !== null) {
            return self::$enabled;
        }
        if (\PHP_SAPI !== 'cli' || !\extension_loaded('ffi')) {
            return self::$enabled = false;
        }
        try {
            $ffi = self::$ffi = \FFI::cdef(self::SAPI_HEAD);
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            $ffi->sapi_module->header_handler = static function (): int {
                self::$dirty = true;
                Async::perFiberStateChanged();

                return self::SAPI_HEADER_ADD;
            };
        } catch (\Throwable) {
            return self::$enabled = false;
        }
        \header_remove();
        Async::keepPerFiber(new HeaderListPerFiber(), savedAfterChangesOnly: true);
        // The trampoline dies with the FFI scope when PHP shuts down, and PHP still touches
        // headers after the shutdown functions: hand the CLI no handler (keep every header) at
        // the very end — a shutdown function registered while they run comes after them all.
        \register_shutdown_function(static function (): void {
            \register_shutdown_function(static function (): void {
                if (self::$ffi !== null) {
                    // @phpstan-ignore property.notFound (a C variable of the FFI scope)
                    self::$ffi->sapi_module->header_handler = null;
                }
            });
        });

        return self::$enabled = true;
    }

    public static function isEnabled(): bool
    {
        return self::$enabled === true;
    }

    /**
     * The header lines set since the last take(), in order, and a clean list for the next.
     *
     * @return list<string>
     */
    public static function take(): array
    {
        if (!self::$dirty) {
            return [];
        }
        $lines = \headers_list();
        if ($lines !== []) {
            \header_remove();
        }
        self::$dirty = false;

        return $lines;
    }
}
