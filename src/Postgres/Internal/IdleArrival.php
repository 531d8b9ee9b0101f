<?php

declare(strict_types=1);

namespace Bobbin\Postgres\Internal;

use PgSql\Connection as PgConnection;

/**
 * What the server sent a session while it sat idle, found by Connection::isAlive()'s peek:
 * whether it ends the session. The end of the stream does, and so does an ErrorResponse, which
 * the server sends outside a statement only as its last words (a FATAL: pg_terminate_backend(),
 * idle_session_timeout, shutdown). Anything else is read and discarded. Apart from Connection
 * because it runs only when something arrived, which a healthy idle session never sees.
 *
 * @internal
 */
final class IdleArrival
{
    private function __construct()
    {
    }

    /** @param string $firstByte the first byte that arrived; '' for the end of the stream or a socket error */
    public static function endsSession(PgConnection $handle, string $firstByte): bool
    {
        if ($firstByte === '' || $firstByte === 'E') {
            // The end of the stream, or the error a terminated backend sends before it.
            return true;
        }
        // Twice: a backend that was terminated sends its error message first and the end of the
        // stream after it, and libpq notices the closed socket only on a read that returns nothing.
        for ($read = 0; $read < 2; $read++) {
            if (!@\pg_consume_input($handle)) {
                return true;
            }
        }
        // Anything that arrived while idle (e.g. the error of a terminated backend): discard it.
        while (@\pg_get_result($handle) !== false) {
            // Results nobody asked for.
        }

        return \pg_connection_status($handle) !== \PGSQL_CONNECTION_OK;
    }
}
