<?php

declare(strict_types=1);

namespace Bobbin\Http\Legacy;

/**
 * PHP's session module remembers the last session id for the whole process (its `PS(id)`),
 * which under PHP-FPM ends with each request. Between two requests of the legacy mode the
 * session is written and closed and that id forgotten, so the next session_start() looks for
 * the next client's cookie instead of continuing the previous client's session. session_id('')
 * leaves an empty id behind (then never read from the cookie), so the pointer itself is cleared
 * through FFI: `ps_globals` begins with two char pointers and then the id (ext/session, PHP 8).
 *
 * @internal used by the script loops
 */
final class SessionReset
{
    private const PS_GLOBALS_HEAD = 'typedef struct { char *save_path; char *session_name; void *id; } bobbin_ps_globals_head;'
        . ' extern bobbin_ps_globals_head ps_globals;';

    private static ?\FFI $ffi = null;
    private static ?bool $available = null;

    private function __construct()
    {
    }

    /** Whether sessions can be reset between requests here (ext-session and FFI). */
    public static function isAvailable(): bool
    {
        if (self::$available === null) {
            try {
                self::$ffi = \extension_loaded('session') && \extension_loaded('ffi') ? \FFI::cdef(self::PS_GLOBALS_HEAD) : null;
            } catch (\Throwable) {
                self::$ffi = null;
            }
            self::$available = self::$ffi !== null;
        }

        return self::$available;
    }

    /** Writes and closes an open session and forgets its id. */
    public static function afterRequest(): void
    {
        if (!\extension_loaded('session')) {
            return;
        }
        if (\session_status() === \PHP_SESSION_ACTIVE) {
            \session_write_close();
        }
        if (self::isAvailable() && self::$ffi !== null) {
            @\session_id(''); // the interned empty string: clearing the pointer below leaks nothing
            // @phpstan-ignore property.notFound (a C variable of the FFI scope)
            self::$ffi->ps_globals->id = null;
        }
    }
}
