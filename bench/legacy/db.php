<?php
/*
 * The connection, as legacy code keeps it: a persistent one (one per FPM child, and one per
 * Bobbin worker, where this file runs once per worker because it is loaded with require_once).
 */

function bench_db()
{
    static $db = null;

    return $db ??= pg_pconnect((string) getenv('DATABASE_URL'));
}
