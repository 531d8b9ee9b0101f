<?php

declare(strict_types=1);

namespace Bobbin\Http\Classic;

use Bobbin\Async\Async;

/**
 * Lets header(), setcookie() and header_remove() work in the CLI as under PHP-FPM: PHP's CLI
 * SAPI drops every header, because its header handler says "do not keep it". With that handler
 * removed (one write into `sapi_module` through FFI, once per process) PHP keeps the headers in
 * its list, headers_list() reads them and the server takes them into the response.
 *
 * The list follows the fiber that set it (HeaderListPerFiber): concurrent requests each keep
 * their own.
 *
 * Only the head of `sapi_module_struct` is declared: eleven pointers, then `header_handler`, as
 * in every PHP 8 (main/SAPI.h). Without FFI (ffi.enable=false) it stays off and says so.
 */
final class HeaderCapture
{
    private const SAPI_HEAD = 'typedef struct { void *before_header_handler[11]; void *header_handler; } bobbin_sapi_module_head;'
        . ' extern bobbin_sapi_module_head sapi_module;';

    private static ?bool $enabled = null;

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
            $ffi = \FFI::cdef(self::SAPI_HEAD);
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            $ffi->sapi_module->header_handler = null;
        } catch (\Throwable) {
            return self::$enabled = false;
        }
        \header_remove();
        Async::keepPerFiber(new HeaderListPerFiber());

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
        $lines = \headers_list();
        if ($lines !== []) {
            \header_remove();
        }

        return $lines;
    }
}
